// Every layer kind's parameters and API class.
#pragma once

#include "network/layers/activation.h"
#include "network/layers/concatenation.h"
#include "network/layers/constant.h"
#include "network/layers/convolution.h"
#include "network/layers/elementwise.h"
#include "network/layers/matrix_multiply.h"
#include "network/layers/pooling.h"
#include "network/layers/scale.h"
#include "network/layers/shuffle.h"
#include "network/layers/softmax.h"
#include "network/layers/unary.h"
