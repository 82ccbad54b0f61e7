// trt.IErrorRecorder written in Python and trt.ErrorCodeTRT. The objects that take a recorder (builder, network,
// runtime, engine, execution context: their error_recorder properties, callbacks.h) keep it alive with them, so the
// reference count TensorRT's C++ interface carries is the binding's own: Kiln's calls to inc/decRefCount only
// count, and Python's reference counting decides when the recorder goes.
#include "callbacks.h"

namespace kiln::python
{

namespace
{

using nvinfer1::ErrorCode;
using nvinfer1::IErrorRecorder;

//! The Python methods: num_errors(), get_error_code(index), get_error_desc(index), has_overflowed(), clear() and
//! report_error(val, desc) -> bool (True: the caller should stop).
class PyErrorRecorder : public IErrorRecorder
{
public:
    int32_t getNbErrors() const override
    {
        return callBack(self(), "IErrorRecorder", "num_errors", 0,
            [](py::function const& method) { return method().cast<int32_t>(); });
    }
    ErrorCode getErrorCode(int32_t errorIdx) const override
    {
        return callBack(self(), "IErrorRecorder", "get_error_code", ErrorCode::kUNSPECIFIED_ERROR,
            [&](py::function const& method) { return method(errorIdx).cast<ErrorCode>(); });
    }
    ErrorDesc getErrorDesc(int32_t errorIdx) const override
    {
        return callBack(
            self(), "IErrorRecorder", "get_error_desc", static_cast<ErrorDesc>(""), [&](py::function const& method) {
                mDescription = method(errorIdx).cast<std::string>();
                return mDescription.c_str();
            });
    }
    bool hasOverflowed() const override
    {
        return callBack(self(), "IErrorRecorder", "has_overflowed", false,
            [](py::function const& method) { return method().cast<bool>(); });
    }
    void clear() override
    {
        callBack(self(), "IErrorRecorder", "clear", false, [](py::function const& method) {
            method();
            return true;
        });
    }
    bool reportError(ErrorCode val, ErrorDesc desc) override
    {
        return callBack(self(), "IErrorRecorder", "report_error", false,
            [&](py::function const& method) { return method(val, desc != nullptr ? desc : "").cast<bool>(); });
    }
    RefCount incRefCount() override
    {
        return ++mReferences;
    }
    RefCount decRefCount() override
    {
        return --mReferences;
    }

private:
    IErrorRecorder const* self() const
    {
        return this;
    }

    mutable std::string mDescription; // what the last get_error_desc returned, for the pointer Kiln gets
    RefCount mReferences{0};
};

} // namespace

void bindErrorRecorder(py::module_& m)
{
    py::enum_<ErrorCode>(m, "ErrorCodeTRT", "What kind of error an IErrorRecorder is given.")
        .value("SUCCESS", ErrorCode::kSUCCESS)
        .value("UNSPECIFIED_ERROR", ErrorCode::kUNSPECIFIED_ERROR)
        .value("INTERNAL_ERROR", ErrorCode::kINTERNAL_ERROR)
        .value("INVALID_ARGUMENT", ErrorCode::kINVALID_ARGUMENT)
        .value("INVALID_CONFIG", ErrorCode::kINVALID_CONFIG)
        .value("FAILED_ALLOCATION", ErrorCode::kFAILED_ALLOCATION)
        .value("FAILED_INITIALIZATION", ErrorCode::kFAILED_INITIALIZATION)
        .value("FAILED_EXECUTION", ErrorCode::kFAILED_EXECUTION)
        .value("FAILED_COMPUTATION", ErrorCode::kFAILED_COMPUTATION)
        .value("INVALID_STATE", ErrorCode::kINVALID_STATE)
        .value("UNSUPPORTED_STATE", ErrorCode::kUNSUPPORTED_STATE);
    py::class_<IErrorRecorder, PyErrorRecorder> recorder(m, "IErrorRecorder",
        "Collects the errors Kiln reports. Subclasses call IErrorRecorder.__init__(self) and implement "
        "num_errors(), get_error_code(index), get_error_desc(index), has_overflowed(), clear() and "
        "report_error(val, desc) -> bool.");
    recorder.def(py::init<>());
    recorder.attr("MAX_DESC_LENGTH") = IErrorRecorder::kMAX_DESC_LENGTH;
}

} // namespace kiln::python
