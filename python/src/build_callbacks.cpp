// What a build calls back or reads beside the network: trt.IProgressMonitor (written in Python) and trt.ITimingCache
// (Kiln's, owned by Python), with IBuilderConfig's progress_monitor, create_timing_cache, set_timing_cache and
// get_timing_cache. The config keeps both alive: Kiln reads and updates the cache during every later build, and
// Polygraphy drops its own reference to the cache before it builds.
#include "callbacks.h"

#include <memory>

namespace kiln::python
{

namespace
{

using nvinfer1::IBuilderConfig;
using nvinfer1::IHostMemory;
using nvinfer1::IProgressMonitor;
using nvinfer1::ITimingCache;

//! trt.IProgressMonitor: phase_start, step_complete (False cancels the build) and phase_finish in Python. A method
//! that raises (or is missing) is logged and cancels the build at the next step: phase_start and phase_finish return
//! nothing, so their failure is remembered until then.
class PyProgressMonitor : public IProgressMonitor
{
public:
    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) override
    {
        if (parentPhase == nullptr)
        {
            mFailed = false; // a new build: an earlier build's failure does not cancel it
        }
        // pybind11 gives a null parentPhase (the outermost phase) to Python as None.
        mFailed = !notify("phase_start", phaseName, parentPhase, nbSteps) || mFailed;
    }
    bool stepComplete(char const* phaseName, int32_t step) override
    {
        if (mFailed)
        {
            return false;
        }
        return callBack(self(), "IProgressMonitor", "step_complete", false,
            [&](py::function const& method) { return method(phaseName, step).cast<bool>(); });
    }
    void phaseFinish(char const* phaseName) override
    {
        mFailed = !notify("phase_finish", phaseName) || mFailed;
    }

private:
    IProgressMonitor const* self() const
    {
        return this;
    }

    //! Calls a method that returns nothing; false where it raised or is missing (logged by callBack).
    template <typename... Args>
    bool notify(char const* name, Args const&... args)
    {
        return callBack(self(), "IProgressMonitor", name, false, [&](py::function const& method) {
            method(args...);
            return true;
        });
    }

    bool mFailed{false}; // phase_start or phase_finish raised since this build began
};

void bindProgressMonitor(py::module_& m, py::class_<IBuilderConfig>& config)
{
    py::class_<IProgressMonitor, PyProgressMonitor>(m, "IProgressMonitor",
        "Reports a build's progress. Subclasses call IProgressMonitor.__init__(self) and implement "
        "phase_start(phase_name, parent_phase, num_steps), step_complete(phase_name, step) -> bool (False cancels "
        "the build) and phase_finish(phase_name).")
        .def(py::init<>());
    config.def_property("progress_monitor",
        py::cpp_function(
            [](IBuilderConfig const& self) { return self.getProgressMonitor(); }, py::return_value_policy::reference),
        py::cpp_function([](IBuilderConfig& self, IProgressMonitor* monitor) { self.setProgressMonitor(monitor); },
            py::keep_alive<1, 2>()),
        "The IProgressMonitor builds with this config report to (None: none); kept alive with the config.");
}

void bindTimingCache(py::module_& m, py::class_<IBuilderConfig>& config)
{
    py::class_<ITimingCache> cache(m, "ITimingCache", "Kernel timings shared between builds on one device.");
    cache
        .def(
            "serialize", [](ITimingCache const& self) { return std::unique_ptr<IHostMemory>(self.serialize()); },
            "The cache as bytes (IHostMemory), for create_timing_cache in a later process.")
        .def("combine", &ITimingCache::combine, py::arg("input_cache"), py::arg("ignore_mismatch"),
            "Adds the entries of input_cache this cache lacks; False when it was made on another device and "
            "ignore_mismatch is False.")
        .def("reset", &ITimingCache::reset, "Empties the cache.");
    defineContextManager(cache);

    config
        .def(
            "create_timing_cache",
            [](IBuilderConfig const& self, py::buffer serialized) {
                py::buffer_info const info = serialized.request();
                auto const bytes = static_cast<size_t>(info.size * info.itemsize);
                return std::unique_ptr<ITimingCache>(self.createTimingCache(info.ptr, bytes));
            },
            py::arg("serialized_timing_cache"),
            "A timing cache: empty for b\"\", else read from serialize()'s bytes; None (the reason logged) if they "
            "cannot be read.")
        .def("set_timing_cache", &IBuilderConfig::setTimingCache, py::arg("cache"), py::arg("ignore_mismatch"),
            py::keep_alive<1, 2>(),
            "Builds with this config read and add to `cache`, which is kept alive with the config; False when it was "
            "made on another device and ignore_mismatch is False.")
        .def(
            "get_timing_cache", [](IBuilderConfig const& self) { return self.getTimingCache(); },
            py::return_value_policy::reference, "The cache set_timing_cache gave, or None.");
}

} // namespace

void bindBuildCallbacks(py::module_& m, py::class_<IBuilderConfig>& config)
{
    bindProgressMonitor(m, config);
    bindTimingCache(m, config);
    bindCalibrators(m, config);
}

} // namespace kiln::python
