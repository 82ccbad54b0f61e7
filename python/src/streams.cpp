// Plans through the application's stream: trt.IStreamWriter (Builder.build_serialized_network_to_stream) written in
// Python, with TensorRT's method names and arguments. A write that raises, is missing or returns a value of the wrong
// type is logged naming it, and the build fails (False), never the process. (Readers written in Python are not bound:
// on the GPU machine, with torch loaded, their calls crashed the interpreter, a cause not yet found.)
#include "callbacks.h"

#include <NvInfer.h>

#include <memory>

namespace kiln::python
{

namespace
{

using nvinfer1::IBuilder;
using nvinfer1::IBuilderConfig;
using nvinfer1::INetworkDefinition;
using nvinfer1::IStreamWriter;

//! The value Kiln takes as a failed write.
constexpr int64_t kFailed = -1;

//! trt.IStreamWriter: write(data: bytes) -> the number of bytes written.
class PyStreamWriter : public IStreamWriter
{
public:
    int64_t write(void const* data, int64_t nbBytes) override
    {
        return callBack(static_cast<IStreamWriter const*>(this), "IStreamWriter", "write", kFailed,
            [&](py::function const& method) {
                py::object const written = method(py::bytes(static_cast<char const*>(data), nbBytes));
                if (!py::isinstance<py::int_>(written))
                {
                    throw std::runtime_error("the byte count must be an int, not " + pythonTypeName(written));
                }
                return written.cast<int64_t>();
            });
    }
};

} // namespace

void bindStreams(py::module_& m)
{
    py::class_<IStreamWriter, PyStreamWriter>(m, "IStreamWriter",
        "Receives a plan as it is written. Subclasses call IStreamWriter.__init__(self) and implement write(data) "
        "returning the number of bytes written (fewer fails the build).")
        .def(py::init<>());
    auto builder = py::reinterpret_borrow<py::class_<IBuilder>>(m.attr("Builder"));
    builder.def(
        "build_serialized_network_to_stream",
        [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config, IStreamWriter& writer) {
            py::gil_scoped_release release;
            return self.buildSerializedNetworkToStream(network, config, writer);
        },
        py::arg("network"), py::arg("config"), py::arg("writer"),
        "Builds as build_serialized_network does and writes the plan to writer; False with the reason logged.");
}

} // namespace kiln::python
