#include "onnx/importer_table.h"

#include "onnx/importers/importers.h"

namespace kiln::onnxparser
{

ImporterTable const& builtinImporters()
{
    static ImporterTable const table = [] {
        ImporterTable t;
        registerActivationImporters(t);
        registerConstantImporters(t);
        registerConvImporters(t);
        registerCumSumImporters(t);
        registerEinsumImporters(t);
        registerElementWiseImporters(t);
        registerGridSampleImporters(t);
        registerMatMulImporters(t);
        registerNormalizationImporters(t);
        registerPluginOpImporters(t);
        registerPoolImporters(t);
        registerReduceImporters(t);
        registerResizeImporters(t);
        registerShapeOpImporters(t);
        registerSliceOpImporters(t);
        registerSoftmaxImporters(t);
        registerTopKImporters(t);
        registerTriluImporters(t);
        registerUnaryImporters(t);
        return t;
    }();
    return table;
}

} // namespace kiln::onnxparser
