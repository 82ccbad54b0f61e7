// The nodes of Kiln's symbolic dimension expressions: what nvinfer1::IDimensionExpr is inside Kiln.
//
// Every node is created and owned by one ExprBuilder (shape/expr_builder.h) and lives as long as it. Nodes are
// immutable. Inside one builder, structurally identical constants and operations are one node (hash-consing), so
// pointer equality is structural equality there.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <limits>
#include <string_view>

namespace kiln::shape
{

class ExprBuilder;

//! Identifies a runtime dimension (a symbol or a size tensor) inside its builder. Dense: 0, 1, 2, ...
using SymbolId = int32_t;

enum class ExprKind : uint8_t
{
    kCONSTANT,    //!< a value known while building
    kSYMBOL,      //!< a runtime dimension, e.g. "input tensor x, dimension 2" (named "x.d2")
    kOPERATION,   //!< op(first, second) for one of the nine DimensionOperation values
    kSIZE_TENSOR, //!< the runtime value of a size tensor (IExprBuilder::declareSizeTensor)
};

class Expr final : public nvinfer1::IDimensionExpr
{
public:
    //! What a node is made of; only ExprBuilder fills one in (the key keeps others from creating nodes).
    struct Fields
    {
        ExprKind kind{ExprKind::kCONSTANT};
        nvinfer1::DimensionOperation op{nvinfer1::DimensionOperation::kSUM};
        SymbolId symbolId{-1};
        int32_t outputIndex{-1};
        int64_t value{0};
        Expr const* first{nullptr};  //!< kOPERATION: first operand; kSIZE_TENSOR: the optimum
        Expr const* second{nullptr}; //!< kOPERATION: second operand; kSIZE_TENSOR: the upper bound
        std::string_view name;       //!< kSYMBOL, kSIZE_TENSOR: storage owned by the builder
        uint64_t hash{0};
        //! The least value it takes for any value its symbols may take, as far as known; kNoLowerBound where none is.
        int64_t lowerBound{kNoLowerBound};
        uint32_t index{0};
        ExprBuilder const* owner{nullptr};
    };
    class CreationKey
    {
        friend class ExprBuilder;
        CreationKey() = default;
    };

    Expr(CreationKey, Fields const& fields) noexcept
        : mFields(fields)
    {
    }
    ~Expr() noexcept override = default;

    // nvinfer1::IDimensionExpr
    bool isConstant() const noexcept override
    {
        return mFields.kind == ExprKind::kCONSTANT;
    }
    //! The value for a constant, else INT64_MIN (as TensorRT 10 does).
    int64_t getConstantValue() const noexcept override
    {
        return isConstant() ? mFields.value : std::numeric_limits<int64_t>::min();
    }
    bool isSizeTensor() const noexcept override
    {
        return mFields.kind == ExprKind::kSIZE_TENSOR;
    }

    ExprKind kind() const noexcept
    {
        return mFields.kind;
    }
    bool isSymbol() const noexcept
    {
        return mFields.kind == ExprKind::kSYMBOL;
    }
    bool isOperation() const noexcept
    {
        return mFields.kind == ExprKind::kOPERATION;
    }
    //! kCONSTANT only.
    int64_t constantValue() const noexcept
    {
        return mFields.value;
    }
    //! kSYMBOL and kSIZE_TENSOR: the id to bind a value to (SymbolValues) and the readable name.
    SymbolId symbolId() const noexcept
    {
        return mFields.symbolId;
    }
    std::string_view symbolName() const noexcept
    {
        return mFields.name;
    }
    //! kOPERATION only.
    nvinfer1::DimensionOperation operation() const noexcept
    {
        return mFields.op;
    }
    Expr const& first() const noexcept
    {
        return *mFields.first;
    }
    Expr const& second() const noexcept
    {
        return *mFields.second;
    }
    //! kSIZE_TENSOR only: which output of the layer or plugin, and the expressions given to declareSizeTensor.
    int32_t sizeTensorOutputIndex() const noexcept
    {
        return mFields.outputIndex;
    }
    Expr const& sizeTensorOpt() const noexcept
    {
        return *mFields.first;
    }
    Expr const& sizeTensorUpper() const noexcept
    {
        return *mFields.second;
    }

    //! A value the expression is at least whatever its symbols' values, or kNoLowerBound: a constant's value, 0 for
    //! an extent, a size tensor or a comparison, and what sums, products, quotients, maxima and minima of bounded
    //! operands are at least.
    int64_t lowerBound() const noexcept
    {
        return mFields.lowerBound;
    }
    static constexpr int64_t kNoLowerBound = std::numeric_limits<int64_t>::min();

    //! Depends only on structure (never on addresses or creation order), so it agrees across builders.
    uint64_t structuralHash() const noexcept
    {
        return mFields.hash;
    }
    //! Creation order in the owning builder: 0, 1, 2, ... (evaluation caches are indexed by it).
    uint32_t index() const noexcept
    {
        return mFields.index;
    }
    ExprBuilder const& owner() const noexcept
    {
        return *mFields.owner;
    }

private:
    friend class ExprBuilder;

    Fields mFields;
};

} // namespace kiln::shape
