#include "shape/print.h"

#include <limits>

namespace kiln::shape
{
namespace
{

using nvinfer1::DimensionOperation;

// Deeper or longer than this, the text is unreadable anyway. The depth limit keeps recursion off the end of the
// stack; the length limit bounds the work for shared subexpressions, which print once per use (2^n times for n
// nested doublings of one node).
constexpr int kMAX_PRINT_DEPTH = 256;
constexpr size_t kMAX_PRINT_LENGTH = 4096;

// Binding strength; a child weaker than its position needs parentheses.
constexpr int kCOMPARISON = 1;
constexpr int kADDITIVE = 2;
constexpr int kMULTIPLICATIVE = 3;
constexpr int kATOM = 4;

//! A sum whose right operand is a negative constant prints as a subtraction ("x - 1", not "x + -1").
bool isSubtractionOfConstant(Expr const& expr)
{
    return expr.isOperation() && expr.operation() == DimensionOperation::kSUM && expr.second().isConstant()
        && expr.second().constantValue() < 0 && expr.second().constantValue() != std::numeric_limits<int64_t>::min();
}

int precedence(Expr const& expr)
{
    if (!expr.isOperation())
    {
        return kATOM;
    }
    switch (expr.operation())
    {
    case DimensionOperation::kSUM:
    case DimensionOperation::kSUB: return kADDITIVE;
    case DimensionOperation::kPROD: return kMULTIPLICATIVE;
    case DimensionOperation::kEQUAL:
    case DimensionOperation::kLESS: return kCOMPARISON;
    default: return kATOM;
    }
}

class Printer
{
public:
    explicit Printer(std::string& out)
        : mOut(out)
        , mLengthLimit(out.size() + kMAX_PRINT_LENGTH)
    {
    }

    void print(Expr const& expr, int depth)
    {
        if (depth > kMAX_PRINT_DEPTH || mOut.size() > mLengthLimit)
        {
            if (!mTruncated || depth > kMAX_PRINT_DEPTH)
            {
                mOut += "...";
            }
            mTruncated = mTruncated || mOut.size() > mLengthLimit;
            return;
        }
        switch (expr.kind())
        {
        case ExprKind::kCONSTANT: mOut += std::to_string(expr.constantValue()); return;
        case ExprKind::kSYMBOL:
        case ExprKind::kSIZE_TENSOR: mOut += expr.symbolName(); return;
        case ExprKind::kOPERATION: printOperation(expr, depth); return;
        }
    }

private:
    void printOperation(Expr const& expr, int depth)
    {
        switch (expr.operation())
        {
        case DimensionOperation::kSUM:
            if (isSubtractionOfConstant(expr))
            {
                printOperand(expr.first(), kADDITIVE, depth);
                mOut += " - ";
                mOut += std::to_string(-expr.second().constantValue());
                return;
            }
            printInfix(expr, " + ", kADDITIVE, kADDITIVE + 1, depth);
            return;
        case DimensionOperation::kSUB: printInfix(expr, " - ", kADDITIVE, kADDITIVE + 1, depth); return;
        case DimensionOperation::kPROD: printInfix(expr, " * ", kMULTIPLICATIVE, kMULTIPLICATIVE + 1, depth); return;
        // Comparisons do not chain: both sides bind tighter.
        case DimensionOperation::kEQUAL: printInfix(expr, " == ", kADDITIVE, kADDITIVE, depth); return;
        case DimensionOperation::kLESS: printInfix(expr, " < ", kADDITIVE, kADDITIVE, depth); return;
        case DimensionOperation::kMAX: printCall(expr, "max", depth); return;
        case DimensionOperation::kMIN: printCall(expr, "min", depth); return;
        case DimensionOperation::kFLOOR_DIV: printCall(expr, "floor_div", depth); return;
        case DimensionOperation::kCEIL_DIV: printCall(expr, "ceil_div", depth); return;
        }
    }

    void printInfix(Expr const& expr, char const* symbol, int leftNeeds, int rightNeeds, int depth)
    {
        printOperand(expr.first(), leftNeeds, depth);
        mOut += symbol;
        printOperand(expr.second(), rightNeeds, depth);
    }

    void printCall(Expr const& expr, char const* name, int depth)
    {
        mOut += name;
        mOut += '(';
        print(expr.first(), depth + 1);
        mOut += ", ";
        print(expr.second(), depth + 1);
        mOut += ')';
    }

    void printOperand(Expr const& operand, int needed, int depth)
    {
        int const actual = isSubtractionOfConstant(operand) ? kADDITIVE : precedence(operand);
        bool const parenthesise = actual < needed;
        if (parenthesise)
        {
            mOut += '(';
        }
        print(operand, depth + 1);
        if (parenthesise)
        {
            mOut += ')';
        }
    }

    std::string& mOut;
    size_t mLengthLimit;
    bool mTruncated{false};
};

} // namespace

void appendExpr(std::string& out, Expr const& expr)
{
    Printer(out).print(expr, 0);
}

std::string toString(Expr const& expr)
{
    std::string text;
    appendExpr(text, expr);
    return text;
}

} // namespace kiln::shape
