// Kiln extension: unit-test a plugin's getOutputDimensions / getOutputShapes without building an engine.
//
//     kiln::ShapeExprTester t;
//     nvinfer1::DimsExprs in = t.dims({"N", 3, "H", "W"});
//     nvinfer1::DimsExprs out = plugin.getOutputDimensions(0, &in, 1, t.builder());
//     std::optional<nvinfer1::Dims> d = t.evaluate(out, {{"N", 8}, {"H", 224}, {"W", 224}});
//     std::string text = t.toString(*out.d[2]);  // e.g. "floor_div(H - 1, 2) + 1"
//
// The builder behaves as the one Kiln's engine builder hands to plugins: exact int64 arithmetic, FLOOR_DIV rounding
// toward negative infinity and CEIL_DIV toward positive infinity, kEQUAL / kLESS giving 1 or 0, and operation()
// returning nullptr (with lastError() saying why) for an invalid op, or for constants that divide by zero or overflow.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace kiln
{

//! One dimension given to ShapeExprTester::dims: a known extent or a named runtime dimension.
class DimArg
{
public:
    DimArg(int64_t extent)
        : mExtent(extent)
    {
    }
    DimArg(int extent)
        : mExtent(extent)
    {
    }
    DimArg(char const* symbol)
        : mSymbol(symbol != nullptr ? symbol : "")
        , mIsSymbol(true)
    {
    }
    DimArg(std::string symbol)
        : mSymbol(std::move(symbol))
        , mIsSymbol(true)
    {
    }

    bool isSymbol() const noexcept
    {
        return mIsSymbol;
    }
    //! The extent when !isSymbol().
    int64_t extent() const noexcept
    {
        return mExtent;
    }
    //! The symbol's name when isSymbol().
    std::string const& symbol() const noexcept
    {
        return mSymbol;
    }

private:
    int64_t mExtent{0};
    std::string mSymbol;
    bool mIsSymbol{false};
};

//! An expression builder for tests, with named symbols. Expressions live as long as the tester.
class TENSORRTAPI ShapeExprTester
{
public:
    ShapeExprTester();
    ~ShapeExprTester();
    ShapeExprTester(ShapeExprTester const&) = delete;
    ShapeExprTester& operator=(ShapeExprTester const&) = delete;

    //! The builder to pass to getOutputDimensions / getOutputShapes.
    nvinfer1::IExprBuilder& builder();

    //! The runtime dimension of that name; the same name gives the same expression.
    nvinfer1::IDimensionExpr const* symbol(std::string const& name);

    //! All constants. nbDims outside 0..Dims::MAX_DIMS gives nbDims == -1 and lastError() says why.
    nvinfer1::DimsExprs dims(nvinfer1::Dims const& concrete);
    //! Constants and named symbols, e.g. {"N", 3, "H", "W"}. More than Dims::MAX_DIMS entries gives nbDims == -1.
    nvinfer1::DimsExprs dims(std::initializer_list<DimArg> dims);

    //! The value once the named symbols have values (names that the expression does not use are ignored; size
    //! tensors are bound by their names, "out<index>.size"). nullopt, with lastError() saying why, for an unbound
    //! symbol, a division by zero, an int64 overflow, or an expression of another builder.
    std::optional<int64_t> evaluate(
        nvinfer1::IDimensionExpr const& e, std::map<std::string, int64_t> const& values) const;
    //! Every dimension as above; nullopt if any fails, if an entry is null or if nbDims is out of range.
    std::optional<nvinfer1::Dims> evaluate(
        nvinfer1::DimsExprs const& e, std::map<std::string, int64_t> const& values) const;

    //! Readable text, e.g. "ceil_div(x.d2 + 2, 2)", "max(N, 1)".
    std::string toString(nvinfer1::IDimensionExpr const& e) const;

    //! Why the last failing call failed: operation() or declareSizeTensor() returning nullptr, dims(), evaluate().
    std::string lastError() const;

private:
    class Impl;
    std::unique_ptr<Impl> mImpl;
};

} // namespace kiln
