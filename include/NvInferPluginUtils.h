// Kiln: parameter structs of the standard detection plugins. Plugins serialize
// these with sizeof, so the members, their order and their types are TensorRT's.
#ifndef NV_INFER_PLUGIN_UTILS_H
#define NV_INFER_PLUGIN_UTILS_H

#include "NvInferRuntimeCommon.h"

namespace nvinfer1
{
namespace plugin
{

//! SSD prior boxes.
//! Four integers, the permutation or strides of the Permute plugin.
typedef struct
{
    int32_t data[4];
} Quadruple;

struct PriorBoxParameters
{
    float *minSize, *maxSize, *aspectRatios;
    int32_t numMinSize, numMaxSize, numAspectRatios;
    bool flip;
    bool clip;
    float variance[4];
    int32_t imgH, imgW;
    float stepH, stepW;
    float offset;
};

//! Faster R-CNN region proposal + ROI pooling.
struct RPROIParams
{
    int32_t poolingH;
    int32_t poolingW;
    int32_t featureStride;
    int32_t preNmsTop;
    int32_t nmsMaxOut;
    int32_t anchorsRatioCount;
    int32_t anchorsScaleCount;
    float iouThreshold;
    float minBoxSize;
    float spatialScale;
};

//! Grid anchors for one feature map.
struct GridAnchorParameters
{
    float minSize, maxSize;
    float* aspectRatios;
    int32_t numAspectRatios, H, W;
    float variance[4];
};

//! How box offsets are encoded.
enum class CodeTypeSSD : int32_t
{
    CORNER = 0,
    CENTER_SIZE = 1,
    CORNER_SIZE = 2,
    TF_CENTER = 3,
};

//! SSD detection output (decode + NMS).
struct DetectionOutputParameters
{
    bool shareLocation, varianceEncodedInTarget;
    int32_t backgroundLabelId, numClasses, topK, keepTopK;
    float confidenceThreshold, nmsThreshold;
    CodeTypeSSD codeType;
    int32_t inputOrder[3];
    bool confSigmoid;
    bool isNormalized;
    bool isBatchAgnostic{true};
};

//! The word tree of YOLO9000's hierarchical softmax.
struct softmaxTree
{
    int32_t* leaf;
    int32_t n;
    int32_t* parent;
    int32_t* child;
    int32_t* group;
    char** name;

    int32_t groups;
    int32_t* groupSize;
    int32_t* groupOffset;
};

//! YOLOv2 region layer.
struct RegionParameters
{
    int32_t num;
    int32_t coords;
    int32_t classes;
    softmaxTree* smTree;
};

//! Batched NMS (also serialized by mmdeploy's TRTBatchedNMS).
struct NMSParameters
{
    bool shareLocation;
    int32_t backgroundLabelId, numClasses, topK, keepTopK;
    float scoreThreshold, iouThreshold;
    bool isNormalized;
};

} // namespace plugin
} // namespace nvinfer1

#endif // NV_INFER_PLUGIN_UTILS_H
