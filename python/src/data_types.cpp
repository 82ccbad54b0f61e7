// DataType, TensorIOMode and TensorFormat: the vocabulary of tensors shared by the network and the engine.
#include "bindings.h"
#include "numpy_types.h"

namespace kiln::python
{

void bindDataTypes(py::module_& m)
{
    using nvinfer1::DataType;
    py::enum_<DataType>(m, "DataType", "The type of a tensor's elements.")
        .value("FLOAT", DataType::kFLOAT)
        .value("HALF", DataType::kHALF)
        .value("INT8", DataType::kINT8)
        .value("INT32", DataType::kINT32)
        .value("BOOL", DataType::kBOOL)
        .value("UINT8", DataType::kUINT8)
        .value("FP8", DataType::kFP8)
        .value("BF16", DataType::kBF16)
        .value("INT64", DataType::kINT64)
        .value("INT4", DataType::kINT4)
        .value("FP4", DataType::kFP4)
        .value("E8M0", DataType::kE8M0)
        .def_property_readonly(
            "itemsize", [](DataType type) { return elementSize(type); },
            "Bytes per element (1 for the sub-byte types INT4 and FP4).");

    using nvinfer1::TensorIOMode;
    py::enum_<TensorIOMode>(m, "TensorIOMode", "Whether an engine's tensor is an input, an output, or neither.")
        .value("NONE", TensorIOMode::kNONE)
        .value("INPUT", TensorIOMode::kINPUT)
        .value("OUTPUT", TensorIOMode::kOUTPUT);

    using nvinfer1::TensorFormat;
    py::enum_<TensorFormat>(m, "TensorFormat", py::arithmetic(), "The memory layout of a tensor.")
        .value("LINEAR", TensorFormat::kLINEAR)
        .value("CHW2", TensorFormat::kCHW2)
        .value("HWC8", TensorFormat::kHWC8)
        .value("CHW4", TensorFormat::kCHW4)
        .value("CHW16", TensorFormat::kCHW16)
        .value("CHW32", TensorFormat::kCHW32)
        .value("DHWC8", TensorFormat::kDHWC8)
        .value("CDHW32", TensorFormat::kCDHW32)
        .value("HWC", TensorFormat::kHWC)
        .value("DLA_LINEAR", TensorFormat::kDLA_LINEAR)
        .value("DLA_HWC4", TensorFormat::kDLA_HWC4)
        .value("HWC16", TensorFormat::kHWC16)
        .value("DHWC", TensorFormat::kDHWC);
}

} // namespace kiln::python
