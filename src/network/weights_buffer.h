// A copy of nvinfer1::Weights that the network owns, so the application's
// buffers need not outlive the build (TensorRT requires that they do).
#pragma once

#include "serial/byte_io.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::network
{

//! Who refitted weights answer to (IRefitter): the name setWeightsName gave them ("" if none), and the network layer
//! and role IRefitter::setWeights finds them by.
struct RefitIdentity
{
    std::string name;
    std::string layer;
    nvinfer1::WeightsRole role{nvinfer1::WeightsRole::kANY};
};

class WeightsBuffer
{
public:
    WeightsBuffer() = default;
    //! Copies count elements of type from weights.values (nothing when count is 0).
    explicit WeightsBuffer(nvinfer1::Weights const& weights);

    nvinfer1::Weights view() const
    {
        return nvinfer1::Weights{mType, mBytes.empty() ? nullptr : mBytes.data(), mCount};
    }
    nvinfer1::DataType type() const
    {
        return mType;
    }
    int64_t count() const
    {
        return mCount;
    }
    bool empty() const
    {
        return mCount == 0;
    }
    void const* data() const
    {
        return mBytes.data();
    }
    //! The elements as float, whatever the stored type (FP32, FP16, BF16, INT8, INT32, INT64).
    std::vector<float> toFloat() const;
    //! Floating-point weights stored as `type` (kFLOAT, kHALF or kBF16, rounded to nearest even); weights of other
    //! types unchanged.
    WeightsBuffer storedAs(nvinfer1::DataType type) const;

    //! Replaces the values with `values`' (of this type and count), in the same memory, so that what points at them
    //! stays valid (a refit).
    void overwrite(WeightsBuffer const& values);

    //! The application's pointer the weights were copied from (INetworkDefinition::setWeightsName names weights by it).
    //! Kept by copies and storedAs; never written to a plan.
    void const* source() const
    {
        return mSource;
    }
    //! Set by the builder on weights a refitter may replace; kept by copies and storedAs; the plan records them apart
    //! (plan::RefitRecord).
    std::optional<RefitIdentity> refit;

    void write(serial::ByteWriter& writer) const;
    bool read(serial::ByteReader& reader, char const* what);

private:
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    int64_t mCount{0};
    std::vector<uint8_t> mBytes;
    void const* mSource{nullptr};
};

//! Bytes per element of weights of the given type; 0 when weights cannot have that type.
size_t weightsElementSize(nvinfer1::DataType type);

} // namespace kiln::network
