// kiln.tensorrt.Dims: a tuple subclass made once at import, what every shape the API returns is.
#include "bindings.h"
#include "dims_caster.h"

namespace kiln::python
{
namespace
{
// Never destroyed: the type lives as long as the interpreter, and a static py::object would be released after it.
PyObject* gDimsType = nullptr;
} // namespace

py::handle dimsType()
{
    return gDimsType;
}

void bindDims(py::module_& m)
{
    py::dict attributes;
    attributes["__module__"] = "kiln.tensorrt";
    attributes["__slots__"] = py::tuple();
    attributes["__doc__"] = "A shape: a tuple of extents, -1 where an extent is known only at run time.";
    attributes["MAX_DIMS"] = nvinfer1::Dims::MAX_DIMS;
    py::object const makeType = py::module_::import("builtins").attr("type");
    py::object type = makeType(py::str("Dims"), py::make_tuple(py::type::of(py::tuple())), attributes);
    gDimsType = type.release().ptr();
    m.attr("Dims") = py::handle(gDimsType);
}

} // namespace kiln::python
