// Thin wrappers over the dynamic loader (dlopen, dlsym, dladdr) for plugin libraries,
// and the ILoggerFinder that Kiln hands to them.
#pragma once

#include <NvInferRuntime.h>

#include <string>

namespace kiln::plugin
{

//! dlopen(path, RTLD_LAZY | RTLD_LOCAL). nullptr on failure, with dlerror()'s text in error.
void* openLibrary(char const* path, std::string& error) noexcept;

//! dlclose(handle); a failure is logged (it names path) and otherwise ignored.
void closeLibrary(void* handle, std::string const& path) noexcept;

//! dlsym(handle, name), or nullptr when the library does not export name.
void* findSymbol(void* handle, char const* name) noexcept;

//! The file the loader opened for handle, made absolute and free of symbolic links
//! when possible (so that it can be recorded and opened again from another directory).
std::string pathOfLibrary(void* handle);

//! The shared library that holds object (a polymorphic object: when the object itself
//! lies on the heap, the library holding its virtual table is used). Empty for the
//! main program, for libkiln itself and when no library can be found.
std::string libraryHoldingObject(void const* object);

//! Returns getLogger(), so that a plugin library logs through the application's logger.
//! Lives as long as the process: libraries may keep the pointer.
nvinfer1::ILoggerFinder* kilnLoggerFinder() noexcept;

} // namespace kiln::plugin
