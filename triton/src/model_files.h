// Where a model version's file is, and whether it is a plan or an ONNX model.
#pragma once

#include <string>

namespace kiln::triton
{

struct ModelFile
{
    std::string path;
    bool isOnnx{false};
};

//! The model file of a version folder: defaultFilename when the configuration names one (`default_model_filename`),
//! else model.plan, else model.onnx. A file name ending in ".onnx" is an ONNX model, any other a Kiln plan. A
//! BackendError (NOT_FOUND) names the folder and the names looked for when there is none.
ModelFile findModelFile(std::string const& versionDirectory, std::string const& defaultFilename);

//! The whole file, or a BackendError naming it.
std::string readWholeFile(std::string const& path);

//! Writes bytes to path through a temporary file in the same folder, renamed over path, so that a reader never
//! sees half a file. False (nothing written) when the folder cannot be written.
bool writeFileAtomically(std::string const& path, void const* bytes, size_t size);

} // namespace kiln::triton
