// The fields of NMS_TRT and NMSDynamic_TRT (NVIDIA's DetectionOutputParameters plus scoreBits and
// isBatchAgnostic), shared by both plugins, the host kernel and the CUDA kernels.
#pragma once

#include "common/fields.h"

#include <cstdint>
#include <vector>

namespace kiln::plugins
{

//! NVIDIA's CodeTypeSSD values, as the codeType field carries them.
enum class SsdCode : int32_t
{
    kCORNER = 0,
    kCENTER_SIZE = 1,
    kCORNER_SIZE = 2,
    kTF_CENTER = 3,
};

struct DetectionOutputParams
{
    // NVIDIA's creator leaves the fields it is not given at zero (its parameters live in a static object), except
    // codeType, inputOrder and scoreBits, which it sets to the defaults of TensorFlow's SSD, and isBatchAgnostic.
    bool shareLocation{false};
    bool varianceEncodedInTarget{false};
    int32_t backgroundLabelId{0};
    int32_t numClasses{0};
    int32_t topK{0};
    int32_t keepTopK{0};
    float confidenceThreshold{0.F};
    float nmsThreshold{0.F};
    std::vector<int32_t> inputOrder{0, 2, 1}; //!< where loc, conf and prior data are among the plugin's inputs
    bool confSigmoid{false};
    bool isNormalized{false};
    int32_t codeType{static_cast<int32_t>(SsdCode::kTF_CENTER)};
    int32_t scoreBits{16};      //!< NVIDIA's FP16 sorting shortcut; accepted, every bit is sorted here
    bool isBatchAgnostic{true}; //!< NMS_TRT: every image uses the first image's priors

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("shareLocation", shareLocation, Need::kOPTIONAL);
        field("varianceEncodedInTarget", varianceEncodedInTarget, Need::kOPTIONAL);
        field("backgroundLabelId", backgroundLabelId, Need::kOPTIONAL);
        field("numClasses", numClasses, Need::kREQUIRED);
        field("topK", topK, Need::kREQUIRED);
        field("keepTopK", keepTopK, Need::kREQUIRED);
        field("confidenceThreshold", confidenceThreshold, Need::kOPTIONAL);
        field("nmsThreshold", nmsThreshold, Need::kOPTIONAL);
        field("inputOrder", inputOrder, Need::kOPTIONAL);
        field("confSigmoid", confSigmoid, Need::kOPTIONAL);
        field("isNormalized", isNormalized, Need::kOPTIONAL);
        field("codeType", codeType, Need::kOPTIONAL);
        field("scoreBits", scoreBits, Need::kOPTIONAL);
        field("isBatchAgnostic", isBatchAgnostic, Need::kOPTIONAL);
    }
};

//! Throws PluginError naming `plugin`, the field and its value on an out-of-range field.
void checkDetectionOutputParams(char const* plugin, DetectionOutputParams const& params);

} // namespace kiln::plugins
