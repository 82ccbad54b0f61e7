// DLPack capsules of memory Kiln owns, for tensorrt.plugin's Tensor.__dlpack__ (torch.from_dlpack, cupy, numpy's
// from_dlpack take them). The capsule only describes the memory: its deleter frees the description, never the data,
// which stays Kiln's and is valid only while the plugin runs.
#include "bindings.h"

#include <NvInferRuntime.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::python
{

namespace
{

// DLPack's ABI (dlpack.h, the unversioned "dltensor" capsule every consumer accepts), declared here since the
// header is not among Kiln's dependencies.
struct DLDevice
{
    int32_t deviceType;
    int32_t deviceId;
};

struct DLDataType
{
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};

struct DLTensor
{
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides; // null: compact row-major
    uint64_t byteOffset;
};

struct DLManagedTensor
{
    DLTensor tensor;
    void* managerContext;
    void (*deleter)(DLManagedTensor* self);
};

constexpr int32_t kDLCPU = 1;
constexpr int32_t kDLCUDA = 2;
constexpr uint8_t kDLInt = 0;
constexpr uint8_t kDLUInt = 1;
constexpr uint8_t kDLFloat = 2;
constexpr uint8_t kDLBfloat = 4;
constexpr uint8_t kDLBool = 6;

constexpr char const* kCapsuleName = "dltensor"; // a consumer renames it "used_dltensor" and calls the deleter

//! The managed tensor and the shape it points into, freed together by the deleter.
struct Description
{
    DLManagedTensor managed{};
    std::vector<int64_t> shape;
};

void deleteDescription(DLManagedTensor* managed)
{
    delete static_cast<Description*>(managed->managerContext);
}

//! A capsule no consumer took still owns its description.
void deleteUnconsumedCapsule(PyObject* capsule)
{
    if (PyCapsule_IsValid(capsule, kCapsuleName))
    {
        auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
        managed->deleter(managed);
    }
}

DLDataType dlpackType(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return {kDLFloat, 32, 1};
    case DataType::kHALF: return {kDLFloat, 16, 1};
    case DataType::kBF16: return {kDLBfloat, 16, 1};
    case DataType::kINT8: return {kDLInt, 8, 1};
    case DataType::kINT32: return {kDLInt, 32, 1};
    case DataType::kINT64: return {kDLInt, 64, 1};
    case DataType::kUINT8: return {kDLUInt, 8, 1};
    case DataType::kBOOL: return {kDLBool, 8, 1};
    default: break;
    }
    throw py::type_error(
        "DLPack has no type for a plugin tensor of type " + py::str(py::cast(type)).cast<std::string>());
}

py::object dlpackCapsule(
    uintptr_t address, std::vector<int64_t> const& shape, nvinfer1::DataType type, bool onDevice, int32_t deviceId)
{
    for (int64_t extent : shape)
    {
        if (extent < 0)
        {
            throw py::value_error("a DLPack tensor's extents cannot be negative");
        }
    }
    DLDataType const dtype = dlpackType(type);
    auto* description = new Description{};
    description->shape = shape;
    DLManagedTensor& managed = description->managed;
    managed.tensor.data = reinterpret_cast<void*>(address);
    managed.tensor.device = {onDevice ? kDLCUDA : kDLCPU, onDevice ? deviceId : 0};
    managed.tensor.ndim = static_cast<int32_t>(shape.size());
    managed.tensor.dtype = dtype;
    managed.tensor.shape = description->shape.data();
    managed.managerContext = description;
    managed.deleter = deleteDescription;
    PyObject* capsule = PyCapsule_New(&managed, kCapsuleName, deleteUnconsumedCapsule);
    if (capsule == nullptr)
    {
        delete description;
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(capsule);
}

} // namespace

void bindDlpack(py::module_& m)
{
    m.def("_dlpack_capsule", &dlpackCapsule, py::arg("address"), py::arg("shape"), py::arg("type"),
        py::arg("on_device"), py::arg("device_id"),
        "Kiln's: a DLPack capsule describing (never owning) contiguous memory; tensorrt.plugin.Tensor's __dlpack__.");
}

} // namespace kiln::python
