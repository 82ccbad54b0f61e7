// IFillLayer: generates a tensor. kLINSPACE: element (i0, i1, ...) = alpha + sum_d beta[d] * i_d; a static beta is
// one delta, so static kLINSPACE runs for 0-D and 1-D outputs only (TensorRT fails otherwise too), and input 2 gives
// one delta per output dim. kRANDOM_UNIFORM: uniform in [alpha, beta]; kRANDOM_NORMAL: mean alpha, deviation beta.
// The shape (input 0, a 1-D INT32/INT64 shape tensor), alpha (input 1, 0-D) and beta (input 2) may come from
// tensors. TensorRT wants alpha and beta both static or both inputs; Kiln takes the static value of the one not
// given (applications set the two inputs one after the other, and shapes are inferred whenever a layer is added).
// TensorRT's defaults: alpha 0, beta 1, FLOAT output.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct FillParams final : LayerParamsOf<FillParams, nvinfer1::LayerType::kFILL, nvinfer1::IFillLayer>
{
    nvinfer1::Dims dimensions{};
    nvinfer1::FillOperation operation{nvinfer1::FillOperation::kLINSPACE};
    double alpha{0.0};
    double beta{1.0};
    nvinfer1::DataType toType{nvinfer1::DataType::kFLOAT};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.dimensions, "fill dimensions");
        field(self.operation, "fill operation");
        field(self.alpha, "fill alpha");
        field(self.beta, "fill beta");
        field(self.toType, "fill output type");
    }

    bool infer(InferenceContext& ctx) const override;
    //! A linear fill gives the same values every time; a random one draws anew at each inference.
    bool foldsWhenConstant() const override
    {
        return operation == nvinfer1::FillOperation::kLINSPACE;
    }
};

class FillLayer final : public LayerBase<nvinfer1::IFillLayer, FillParams>
{
public:
    using LayerBase::LayerBase;
    //! Each static setter removes the input that would override it, as in TensorRT.
    void setDimensions(nvinfer1::Dims const& dimensions) noexcept override
    {
        change().dimensions = dimensions;
        clearLayerInput(0);
    }
    //! nbDims -1 while input 0 gives the shape.
    nvinfer1::Dims getDimensions() const noexcept override
    {
        if (getInput(0) != nullptr)
        {
            nvinfer1::Dims none{};
            none.nbDims = -1;
            return none;
        }
        return typedParams().dimensions;
    }
    void setOperation(nvinfer1::FillOperation op) noexcept override
    {
        change().operation = op;
    }
    nvinfer1::FillOperation getOperation() const noexcept override
    {
        return typedParams().operation;
    }
    void setAlpha(double alpha) noexcept override
    {
        change().alpha = alpha;
        clearLayerInput(1);
        mAlphaBetaInt64 = false;
    }
    //! -1 while input 1 gives alpha (TensorRT's documented value).
    double getAlpha() const noexcept override
    {
        return getInput(1) != nullptr ? -1.0 : typedParams().alpha;
    }
    void setBeta(double beta) noexcept override
    {
        change().beta = beta;
        clearLayerInput(2);
        mAlphaBetaInt64 = false;
    }
    //! -1 while input 2 gives beta.
    double getBeta() const noexcept override
    {
        return getInput(2) != nullptr ? -1.0 : typedParams().beta;
    }
    // fill.cpp: integer alpha and beta.
    void setAlphaInt64(int64_t alpha) noexcept override;
    int64_t getAlphaInt64() const noexcept override;
    void setBetaInt64(int64_t beta) noexcept override;
    int64_t getBetaInt64() const noexcept override;
    bool isAlphaBetaInt64() const noexcept override
    {
        return mAlphaBetaInt64;
    }
    void setToType(nvinfer1::DataType toType) noexcept override
    {
        change().toType = toType;
    }
    nvinfer1::DataType getToType() const noexcept override
    {
        return typedParams().toType;
    }

private:
    FillParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
    bool mAlphaBetaInt64{false};
};

} // namespace kiln::network
