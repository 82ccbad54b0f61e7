// What a layer's shape-and-type inference sees and produces. Shapes are symbolic
// (IDimensionExpr), so one inference serves every optimization profile and every
// run-time shape; plugins' getOutputDimensions receive the same expressions.
#pragma once

#include <NvInfer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::network
{

//! The inferred facts about one tensor.
struct TensorFacts
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::DimsExprs dims{};
    //! For shape tensors (0-D or 1-D INT32/INT64 whose values are known while shapes
    //! are inferred, e.g. IShapeLayer's output): the values, as expressions.
    std::optional<std::vector<nvinfer1::IDimensionExpr const*>> values;
};

//! A dimension expression with arithmetic operators. A failed operation (say a
//! division by zero between constants) yields a null Dim, and every operation on a
//! null Dim stays null; InferenceContext::setOutput reports it.
class Dim
{
public:
    Dim() = default;
    Dim(nvinfer1::IExprBuilder& builder, nvinfer1::IDimensionExpr const* expr)
        : mBuilder(&builder)
        , mExpr(expr)
    {
    }
    nvinfer1::IDimensionExpr const* get() const
    {
        return mExpr;
    }
    bool isConstant() const
    {
        return mExpr != nullptr && mExpr->isConstant();
    }
    int64_t constant() const
    {
        return mExpr->getConstantValue();
    }

    friend Dim operator+(Dim a, Dim b)
    {
        return a.apply(nvinfer1::DimensionOperation::kSUM, b);
    }
    friend Dim operator-(Dim a, Dim b)
    {
        return a.apply(nvinfer1::DimensionOperation::kSUB, b);
    }
    friend Dim operator*(Dim a, Dim b)
    {
        return a.apply(nvinfer1::DimensionOperation::kPROD, b);
    }
    friend Dim operator+(Dim a, int64_t b)
    {
        return a + a.constantDim(b);
    }
    friend Dim operator-(Dim a, int64_t b)
    {
        return a - a.constantDim(b);
    }
    friend Dim operator*(Dim a, int64_t b)
    {
        return a * a.constantDim(b);
    }
    Dim floorDiv(Dim b) const
    {
        return apply(nvinfer1::DimensionOperation::kFLOOR_DIV, b);
    }
    Dim floorDiv(int64_t b) const
    {
        return floorDiv(constantDim(b));
    }
    Dim ceilDiv(Dim b) const
    {
        return apply(nvinfer1::DimensionOperation::kCEIL_DIV, b);
    }
    Dim ceilDiv(int64_t b) const
    {
        return ceilDiv(constantDim(b));
    }
    Dim max(Dim b) const
    {
        return apply(nvinfer1::DimensionOperation::kMAX, b);
    }
    Dim min(Dim b) const
    {
        return apply(nvinfer1::DimensionOperation::kMIN, b);
    }
    Dim equal(Dim b) const
    {
        return apply(nvinfer1::DimensionOperation::kEQUAL, b);
    }
    Dim less(Dim b) const
    {
        return apply(nvinfer1::DimensionOperation::kLESS, b);
    }
    Dim constantDim(int64_t value) const
    {
        return mBuilder ? Dim(*mBuilder, mBuilder->constant(value)) : Dim();
    }

private:
    Dim apply(nvinfer1::DimensionOperation op, Dim b) const
    {
        if (mExpr == nullptr || b.mExpr == nullptr)
        {
            return {};
        }
        return Dim(*mBuilder, mBuilder->operation(op, *mExpr, *b.mExpr));
    }

    nvinfer1::IExprBuilder* mBuilder{nullptr};
    nvinfer1::IDimensionExpr const* mExpr{nullptr};
};

//! When shapes are inferred. TensorRT's API adds a layer first and sets its parameters after (a convolution's
//! padding, a pooling window's), so while the network is being defined a layer may be inferred with parameters the
//! application has yet to set; a build infers the network as it will run.
enum class InferencePhase : uint8_t
{
    kDEFINING, //!< at every add* and tensor query: what only a later setter can make right is not yet an error
    kBUILDING, //!< at build time and for IBuilder::isNetworkSupported: every rule holds
};

//! One layer's inference: its inputs' facts in, its outputs' facts out, errors recorded.
class InferenceContext
{
public:
    InferenceContext(nvinfer1::IExprBuilder& builder, std::vector<TensorFacts const*> inputs, int32_t nbOutputs,
        InferencePhase phase)
        : mBuilder(builder)
        , mInputs(std::move(inputs))
        , mOutputs(static_cast<size_t>(nbOutputs))
        , mPhase(phase)
    {
    }

    //! Whether the network is being built: a rule that a setter called after the add can satisfy fails only then.
    bool building() const
    {
        return mPhase == InferencePhase::kBUILDING;
    }

    nvinfer1::IExprBuilder& builder()
    {
        return mBuilder;
    }
    int32_t nbInputs() const
    {
        return static_cast<int32_t>(mInputs.size());
    }
    //! False for an optional input that was not given.
    bool hasInput(int32_t index) const
    {
        return index >= 0 && index < nbInputs() && mInputs[index] != nullptr;
    }
    TensorFacts const& input(int32_t index) const
    {
        return *mInputs[index];
    }
    int32_t rank(int32_t inputIndex) const
    {
        return mInputs[inputIndex]->dims.nbDims;
    }
    Dim dim(int32_t inputIndex, int32_t axis)
    {
        return Dim(mBuilder, mInputs[inputIndex]->dims.d[axis]);
    }
    Dim constant(int64_t value)
    {
        return Dim(mBuilder, mBuilder.constant(value));
    }

    //! Sets output i. Fails (with a message) if any extent could not be computed.
    bool setOutput(int32_t index, nvinfer1::DataType type, std::vector<Dim> const& dims);
    bool setOutput(int32_t index, nvinfer1::DataType type, nvinfer1::DimsExprs const& dims);
    TensorFacts& output(int32_t index)
    {
        return mOutputs[index];
    }
    std::vector<TensorFacts>& outputs()
    {
        return mOutputs;
    }

    //! Records why inference failed; always returns false so callers can `return fail(...)`.
    bool fail(std::string message)
    {
        if (mError.empty())
        {
            mError = std::move(message);
        }
        return false;
    }
    std::string const& error() const
    {
        return mError;
    }

private:
    nvinfer1::IExprBuilder& mBuilder;
    std::vector<TensorFacts const*> mInputs;
    std::vector<TensorFacts> mOutputs;
    InferencePhase mPhase;
    std::string mError;
};

} // namespace kiln::network
