// Plans through the application's streams: trt.IStreamWriter (Builder.build_serialized_network_to_stream) and
// trt.IStreamReader / trt.IStreamReaderV2 (Runtime.deserialize_cuda_engine(reader)) written in Python, with
// TensorRT's method names and arguments. Kiln reads and writes plans in host memory on both backends, so a reader's
// bytes are copied into host memory and no stream is involved. A method that raises, is missing or returns a value
// of the wrong type is logged naming it, and the build or load fails (False or None), never the process.
#include "callbacks.h"

#include <NvInfer.h>

#include <cstring>
#include <memory>

namespace kiln::python
{

namespace
{

using nvinfer1::IBuilder;
using nvinfer1::IBuilderConfig;
using nvinfer1::ICudaEngine;
using nvinfer1::INetworkDefinition;
using nvinfer1::IRuntime;
using nvinfer1::IStreamReader;
using nvinfer1::IStreamReaderV2;
using nvinfer1::IStreamWriter;
using nvinfer1::SeekPosition;

//! The value Kiln's readers and writer take as failure.
constexpr int64_t kFailed = -1;

//! Copies what a reader's `read` returned (a buffer of at most `capacity` bytes) to `destination`; the byte count.
//! More bytes than asked for is the reader's error: Kiln would lose the rest of the plan.
int64_t copyRead(py::object const& returned, void* destination, int64_t capacity, char const* where)
{
    py::buffer_info const info = py::reinterpret_borrow<py::buffer>(returned).request();
    int64_t const bytes = static_cast<int64_t>(info.size * info.itemsize);
    if (bytes > capacity)
    {
        throw std::runtime_error(std::string(where) + " gave " + std::to_string(bytes) + " bytes where "
            + std::to_string(capacity) + " were asked for");
    }
    if (bytes > 0)
    {
        std::memcpy(destination, info.ptr, static_cast<size_t>(bytes));
    }
    return bytes;
}

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

//! trt.IStreamReader: read(size) -> at most `size` bytes (bytes or any buffer); fewer only at the end.
class PyStreamReader : public IStreamReader
{
public:
    int64_t read(void* destination, int64_t nbBytes) override
    {
        return callBack(static_cast<IStreamReader const*>(this), "IStreamReader", "read", kFailed,
            [&](py::function const& method) { return copyRead(method(nbBytes), destination, nbBytes, "read"); });
    }
};

//! trt.IStreamReaderV2: read(size, stream) -> at most `size` bytes, empty at the end; seek(offset, where) -> bool.
//! Kiln reads into host memory and passes stream 0.
class PyStreamReaderV2 : public IStreamReaderV2
{
public:
    int64_t read(void* destination, int64_t nbBytes, cudaStream_t stream) override
    {
        return callBack(static_cast<IStreamReaderV2 const*>(this), "IStreamReaderV2", "read", kFailed,
            [&](py::function const& method) {
                return copyRead(method(nbBytes, reinterpret_cast<uintptr_t>(stream)), destination, nbBytes, "read");
            });
    }
    bool seek(int64_t offset, SeekPosition where) override
    {
        return callBack(static_cast<IStreamReaderV2 const*>(this), "IStreamReaderV2", "seek", false,
            [&](py::function const& method) { return method(offset, where).cast<bool>(); });
    }
};

template <typename Reader>
std::unique_ptr<ICudaEngine> deserializeFrom(IRuntime& runtime, Reader& reader)
{
    py::gil_scoped_release release;
    return std::unique_ptr<ICudaEngine>(runtime.deserializeCudaEngine(reader));
}

} // namespace

void bindStreams(py::module_& m)
{
    py::enum_<SeekPosition>(m, "SeekPosition", "Where IStreamReaderV2.seek counts its offset from.")
        .value("SET", SeekPosition::kSET)
        .value("CUR", SeekPosition::kCUR)
        .value("END", SeekPosition::kEND);
    py::class_<IStreamWriter, PyStreamWriter>(m, "IStreamWriter",
        "Receives a plan as it is written. Subclasses call IStreamWriter.__init__(self) and implement write(data) "
        "returning the number of bytes written (fewer fails the build).")
        .def(py::init<>());
    py::class_<IStreamReader, PyStreamReader>(m, "IStreamReader",
        "Gives a plan to Runtime.deserialize_cuda_engine. Subclasses call IStreamReader.__init__(self) and implement "
        "read(size) returning at most size bytes (fewer only at the end of the plan).")
        .def(py::init<>());
    py::class_<IStreamReaderV2, PyStreamReaderV2>(m, "IStreamReaderV2",
        "A seekable source of a plan. Subclasses call IStreamReaderV2.__init__(self) and implement read(size, stream) "
        "returning at most size bytes (none at the end; Kiln reads into host memory and passes stream 0) and "
        "seek(offset, where) with where a SeekPosition, returning True where it moved.")
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

    auto runtime = py::reinterpret_borrow<py::class_<IRuntime>>(m.attr("Runtime"));
    runtime
        .def("deserialize_cuda_engine", &deserializeFrom<IStreamReader>, py::arg("stream_reader"),
            py::keep_alive<0, 1>(), "The engine of the plan the reader gives, or None with the reason logged.")
        .def("deserialize_cuda_engine", &deserializeFrom<IStreamReaderV2>, py::arg("stream_reader_v2"),
            py::keep_alive<0, 1>(), "The engine of the plan the reader gives, or None with the reason logged.");
}

} // namespace kiln::python
