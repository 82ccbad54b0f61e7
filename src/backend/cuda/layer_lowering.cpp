#include "backend/cuda/layer_lowering.h"

#include "network/layer_type_name.h"

#include <stdexcept>

namespace kiln::cuda
{
namespace
{

template <typename Params>
constexpr bool kStateless
    = requires(Params const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    run(params, inputs, outputs, stream);
};

template <typename Params>
constexpr bool kStateful = requires(Params const& params, LayerContext const& context)
{
    lower(params, context);
};

//! A stateless kernel as a DeviceLayer: it keeps the layer's parameters (which live as long as the engine).
template <typename Params>
class StatelessLayer final : public DeviceLayer
{
public:
    explicit StatelessLayer(Params const& params)
        : mParams(params)
    {
    }
    void run(LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream) override
    {
        cuda::run(mParams, inputs, outputs, stream);
    }

private:
    Params const& mParams;
};

std::string noKernel(network::LayerParams const& params)
{
    // Every layer kind the network API makes has a kernel; this guards plans from a future Kiln.
    return std::string("the CUDA backend has no kernel for ") + network::layerTypeName(params.type()) + " layers";
}

} // namespace

std::string unsupportedReason(network::LayerParams const& params)
{
    return network::visitLayerParams(params, [&](auto const& kind) {
        using Params = std::decay_t<decltype(kind)>;
        return kStateless<Params> || kStateful<Params> ? std::string() : noKernel(params);
    });
}

std::unique_ptr<DeviceLayer> lowerLayer(LayerContext const& context)
{
    return network::visitLayerParams(*context.record.params, [&](auto const& kind) -> std::unique_ptr<DeviceLayer> {
        using Params = std::decay_t<decltype(kind)>;
        if constexpr (kStateful<Params>)
        {
            return lower(kind, context);
        }
        else if constexpr (kStateless<Params>)
        {
            return std::make_unique<StatelessLayer<Params>>(kind);
        }
        else
        {
            throw std::runtime_error(noKernel(kind));
        }
    });
}

} // namespace kiln::cuda
