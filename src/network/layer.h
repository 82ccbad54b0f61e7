// A layer of a network: its kind's parameters (LayerParams, the one description
// of the kind that the builder, the plan and every backend read), its tensors,
// and the precision requests of the application.
#pragma once

#include "network/inference.h"
#include "network/tensor.h"
#include "serial/byte_io.h"
#include "serial/field_io.h"

#include <NvInfer.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::network
{

class Network;
class WeightsBuffer;

//! setNbRanks of a layer or an attention: Kiln runs everything on one device, so 1 is accepted and any other count
//! refused with an error naming `call`.
bool acceptNbRanks(char const* call, int32_t nbRanks);

//! The roles LayerParams::weightsOfRole answers for (IRefitter's, but kANY).
inline constexpr std::array<nvinfer1::WeightsRole, 5> kWeightsRoles{nvinfer1::WeightsRole::kKERNEL,
    nvinfer1::WeightsRole::kBIAS, nvinfer1::WeightsRole::kSHIFT, nvinfer1::WeightsRole::kSCALE,
    nvinfer1::WeightsRole::kCONSTANT};

//! How a layer can take channels-last (kHWC) tensors: what lets a region of channels-last data flow through it without
//! a conversion on each side. The CUDA backend's storage-format pass (backend/cuda/passes/channels_last.h) reads it.
enum class ChannelsLast : uint8_t
{
    kNO,     //!< reads and writes row-major tensors only
    kSTARTS, //!< its fastest kernels are channels-last (a 2-D convolution): a region starts at it
    //! computes each output element from the input elements at the same place (or has a channels-last kernel): it
    //! continues a region that reaches one of its inputs
    kCONTINUES,
    kCONTINUES_UNBROADCAST, //!< continues a region where every input has the output's shape (a broadcast walks rows)
    //! continues a region where every input has the output's shape or one element (which is stored alike in every
    //! format, so it stays row-major)
    kCONTINUES_WITH_SINGLES,
    kREADS_ANY, //!< reads channels-last inputs through their strides and writes row-major outputs
    kREORDERS,  //!< folds the storage order into its own axis permutation: it decides its formats itself
};

//! The interface class of a kind only plans hold: a fusion pass makes its layers from others, no INetworkDefinition
//! call adds one, and no application holds one.
struct PlanOnly
{
};

//! Everything that describes one layer kind, apart from its tensors.
class LayerParams
{
public:
    virtual ~LayerParams() = default;
    virtual nvinfer1::LayerType type() const = 0;
    virtual int32_t nbOutputs() const
    {
        return 1;
    }
    //! Output shapes (as expressions) and types from the inputs' facts.
    virtual bool infer(InferenceContext& ctx) const = 0;
    virtual void write(serial::ByteWriter& writer) const = 0;
    virtual bool read(serial::ByteReader& reader) = 0;
    virtual std::unique_ptr<LayerParams> clone() const = 0;
    //! For a layer the builder runs in reduced precision: keeps its floating-point weights in `type`, as TensorRT
    //! does, so the plan stores what FP16 kernels read and the CPU reference sees the same rounded weights.
    virtual void storeWeightsAs(nvinfer1::DataType /*type*/) { }
    //! The weights of `role` (IRefitter's roles): a convolution's kernel and bias, a scale's shift and scale, a
    //! constant's weights; nullptr where the kind has none of that role.
    virtual WeightsBuffer* weightsOfRole(nvinfer1::WeightsRole /*role*/)
    {
        return nullptr;
    }
    WeightsBuffer const* weightsOfRole(nvinfer1::WeightsRole role) const
    {
        return const_cast<LayerParams*>(this)->weightsOfRole(role);
    }
    //! Whether the layer's output types are its meaning (a cast, a copy, stored weights, a shape), so that no
    //! precision the builder chooses applies to it.
    virtual bool keepsItsTypes() const
    {
        return false;
    }
    //! Whether input `index` parameterises the layer (a resize's scales) rather than carries its data: it keeps its
    //! type whatever the layer's precision.
    virtual bool isParameterInput(size_t /*index*/) const
    {
        return false;
    }
    //! Whether the builder may compute the layer once, when every input is a constant, and keep its result as a
    //! constant (builder/constant_folding.h): the kind gives the same values from the same inputs every time and its
    //! CPU reference is cheap. False unless the kind says so: plugins, random fills, data-dependent extents and
    //! compute-heavy kinds are never folded.
    virtual bool foldsWhenConstant() const
    {
        return false;
    }
    //! How the layer can take channels-last tensors, which a backend's storage-format pass reads.
    virtual ChannelsLast channelsLast() const
    {
        return ChannelsLast::kNO;
    }
};

//! LayerParams for the built-in layer kind `Self`, of type `kType`, whose layers an application holds through the
//! interface class `Api` (IActivationLayer, ...; PlanOnly for a kind only plans hold), from the one list of its
//! fields that `Self` declares, which both writes and reads the plan (serial/field_io.h):
//!     template <typename Self, typename Field> static void fields(Self& self, Field&& field);
template <typename Self, nvinfer1::LayerType kType, typename Api>
class LayerParamsOf : public LayerParams
{
public:
    static constexpr nvinfer1::LayerType kLayerType = kType;
    //! The kind's interface class: include/kiln/LayerInterfaces.h lists the same one for kType (checked when
    //! layer_kinds.cpp compiles).
    using Interface = Api;
    static constexpr bool kPlanOnly = std::is_same_v<Api, PlanOnly>;

    nvinfer1::LayerType type() const final
    {
        return kType;
    }
    void write(serial::ByteWriter& writer) const final
    {
        Self::fields(static_cast<Self const&>(*this), serial::FieldWriter(writer));
    }
    bool read(serial::ByteReader& reader) final
    {
        Self::fields(static_cast<Self&>(*this), serial::FieldReader(reader));
        return reader.ok();
    }
    std::unique_ptr<LayerParams> clone() const final
    {
        return std::make_unique<Self>(static_cast<Self const&>(*this));
    }

    //! A kind without fields (select, identity, shape) lists none.
    template <typename Any, typename Field>
    static void fields(Any& /*self*/, Field&& /*field*/)
    {
    }
};

//! The network's record of a layer; LayerBase<Api, Params> is the object the
//! application holds through the TensorRT interface.
class Layer
{
public:
    Layer(Network& network, std::string name, std::vector<Tensor*> inputs, int32_t minInputs, int32_t maxInputs);
    virtual ~Layer() = default;

    virtual nvinfer1::ILayer& api() = 0;
    virtual LayerParams const& params() const = 0;

    std::string const& name() const
    {
        return mName;
    }
    std::vector<Tensor*> const& inputs() const
    {
        return mInputs;
    }
    std::vector<Tensor*> const& outputs() const
    {
        return mOutputs;
    }
    std::optional<nvinfer1::DataType> precision() const
    {
        return mPrecision;
    }
    std::optional<nvinfer1::DataType> requestedOutputType(int32_t index) const
    {
        return index < static_cast<int32_t>(mOutputTypes.size()) ? mOutputTypes[index] : std::nullopt;
    }
    //! Creates the layer's output tensors (called once, by the network).
    void createOutputs(int32_t count);

protected:
    // Shared implementation of nvinfer1::ILayer for LayerBase.
    void setLayerName(char const* name);
    bool setLayerInput(int32_t index, Tensor& tensor);
    void setLayerPrecision(std::optional<nvinfer1::DataType> type)
    {
        mPrecision = type;
    }
    void setLayerOutputType(int32_t index, std::optional<nvinfer1::DataType> type);
    //! Empties optional input `index`: TensorRT's static setters (ITopKLayer::setK, IFillLayer::setAlpha, ...)
    //! reset the input that would override the value they set. The caller invalidates the network's shapes.
    void clearLayerInput(int32_t index)
    {
        if (index >= mMinInputs && index < static_cast<int32_t>(mInputs.size()))
        {
            mInputs[index] = nullptr;
        }
    }
    //! What a kind's setters reach of the network: `network().invalidate()` after a parameter changed, so that this
    //! layer and what depends on it are inferred again, not the whole network.
    class ChangeNotice
    {
    public:
        ChangeNotice(Network& network, Layer const& layer)
            : mNetwork(network)
            , mLayer(layer)
        {
        }
        void invalidate() const;

    private:
        Network& mNetwork;
        Layer const& mLayer;
    };
    ChangeNotice network() const
    {
        return ChangeNotice(mNetwork, *this);
    }
    std::string mMetadata;

private:
    Network& mNetwork;
    std::string mName;
    std::vector<Tensor*> mInputs;
    std::vector<Tensor*> mOutputs;
    int32_t mMinInputs;
    int32_t mMaxInputs;
    std::optional<nvinfer1::DataType> mPrecision;
    std::vector<std::optional<nvinfer1::DataType>> mOutputTypes;
};

//! Implements the nvinfer1::ILayer part of a layer interface once for every kind.
template <typename Api, typename Params>
class LayerBase : public Api, public Layer
{
public:
    LayerBase(Network& network, std::string name, std::vector<Tensor*> inputs, Params params, int32_t minInputs,
        int32_t maxInputs)
        : Layer(network, std::move(name), std::move(inputs), minInputs, maxInputs)
        , mParams(std::move(params))
    {
    }

    nvinfer1::ILayer& api() override
    {
        return *this;
    }
    LayerParams const& params() const override
    {
        return mParams;
    }

    nvinfer1::LayerType getType() const noexcept override
    {
        return mParams.type();
    }
    void setName(char const* name) noexcept override
    {
        setLayerName(name);
    }
    char const* getName() const noexcept override
    {
        return name().c_str();
    }
    int32_t getNbInputs() const noexcept override
    {
        return static_cast<int32_t>(inputs().size());
    }
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override
    {
        return index >= 0 && index < getNbInputs() ? inputs()[index] : nullptr;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return static_cast<int32_t>(outputs().size());
    }
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override
    {
        return index >= 0 && index < getNbOutputs() ? outputs()[index] : nullptr;
    }
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override
    {
        setLayerInput(index, static_cast<Tensor&>(tensor));
    }
    void setPrecision(nvinfer1::DataType dataType) noexcept override
    {
        setLayerPrecision(dataType);
    }
    nvinfer1::DataType getPrecision() const noexcept override
    {
        return precision().value_or(nvinfer1::DataType::kFLOAT);
    }
    bool precisionIsSet() const noexcept override
    {
        return precision().has_value();
    }
    void resetPrecision() noexcept override
    {
        setLayerPrecision(std::nullopt);
    }
    void setOutputType(int32_t index, nvinfer1::DataType dataType) noexcept override
    {
        setLayerOutputType(index, dataType);
    }
    nvinfer1::DataType getOutputType(int32_t index) const noexcept override
    {
        auto requested = requestedOutputType(index);
        if (requested)
        {
            return *requested;
        }
        nvinfer1::ITensor* output = getOutput(index);
        return output ? output->getType() : nvinfer1::DataType::kFLOAT;
    }
    bool outputTypeIsSet(int32_t index) const noexcept override
    {
        return requestedOutputType(index).has_value();
    }
    void resetOutputType(int32_t index) noexcept override
    {
        setLayerOutputType(index, std::nullopt);
    }
    void setMetadata(char const* metadata) noexcept override
    {
        mMetadata = metadata ? metadata : "";
    }
    char const* getMetadata() const noexcept override
    {
        return mMetadata.c_str();
    }
    bool setNbRanks(int32_t nbRanks) noexcept override
    {
        return acceptNbRanks("ILayer::setNbRanks", nbRanks);
    }
    int32_t getNbRanks() const noexcept override
    {
        return 1;
    }

protected:
    //! For a setter: the parameters it changes. The network infers this layer again when next asked, whether or not
    //! the setter also says so.
    Params& mutableParams()
    {
        Layer::network().invalidate();
        return mParams;
    }
    Params const& typedParams() const
    {
        return mParams;
    }

private:
    Params mParams;
};

} // namespace kiln::network
