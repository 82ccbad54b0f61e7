// The test plugin libraries are built with hidden visibility, like real plugin
// libraries; only their entry points are exported.
#pragma once

#define KILN_TEST_EXPORT extern "C" __attribute__((visibility("default")))
