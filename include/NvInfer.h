// Kiln: the top-level header. Network definition and builder interfaces are added
// by the pipeline work; plugin code needs only what NvInferRuntime.h declares.
#ifndef NV_INFER_H
#define NV_INFER_H

#include "NvInferLayerEnums.h"
#include "NvInferLegacyDims.h"
#include "NvInferRuntime.h"

#endif // NV_INFER_H
