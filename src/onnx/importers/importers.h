// One registration function per op family; importer_table.cpp calls them all.
#pragma once

#include "onnx/importer_table.h"

namespace kiln::onnxparser
{

void registerActivationImporters(ImporterTable& table);
void registerConstantImporters(ImporterTable& table);
void registerConvImporters(ImporterTable& table);
void registerCumSumImporters(ImporterTable& table);
void registerEinsumImporters(ImporterTable& table);
void registerElementWiseImporters(ImporterTable& table);
void registerGridSampleImporters(ImporterTable& table);
void registerMatMulImporters(ImporterTable& table);
void registerNormalizationImporters(ImporterTable& table);
void registerPluginOpImporters(ImporterTable& table);
void registerPoolImporters(ImporterTable& table);
void registerReduceImporters(ImporterTable& table);
void registerResizeImporters(ImporterTable& table);
void registerShapeOpImporters(ImporterTable& table);
void registerSliceOpImporters(ImporterTable& table);
void registerSoftmaxImporters(ImporterTable& table);
void registerTopKImporters(ImporterTable& table);
void registerTriluImporters(ImporterTable& table);
void registerUnaryImporters(ImporterTable& table);

} // namespace kiln::onnxparser
