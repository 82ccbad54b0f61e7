// Every layer kind's parameters and API class.
#pragma once

#include "network/layers/activation.h"
#include "network/layers/elementwise.h"
