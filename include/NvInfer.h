// Kiln: the top-level header: network definition, builder, runtime and plugins.
#ifndef NV_INFER_H
#define NV_INFER_H

#include "NvInferLayerEnums.h"
#include "NvInferLegacyDims.h"
#include "NvInferBuilder.h"
#include "NvInferNetwork.h"
#include "NvInferRuntime.h"

#endif // NV_INFER_H
