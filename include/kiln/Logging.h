// Kiln extension: choose the logger that Kiln's free functions report through.
#pragma once

#include <NvInferRuntime.h>

namespace kiln
{
//! Makes logger the one getLogger() returns (nullptr restores the default, which
//! writes warnings and errors to stderr). The logger must outlive its use.
//! createInferBuilder, createInferRuntime and initLibNvInferPlugins call this too.
void setLogger(nvinfer1::ILogger* logger) noexcept;
} // namespace kiln
