// INT8 calibrators written in Python, as TensorRT's Python API has them: subclasses of trt.IInt8EntropyCalibrator2,
// IInt8EntropyCalibrator, IInt8MinMaxCalibrator, IInt8LegacyCalibrator (or IInt8Calibrator with get_algorithm)
// implement get_batch_size(), get_batch(names) -> a list of one memory address per input (None or [] when the data
// is exhausted), read_calibration_cache() -> bytes or None and write_calibration_cache(cache); the legacy one also
// get_quantile(), get_regression_cutoff(), read_histogram_cache() and write_histogram_cache(cache). IBuilderConfig's
// int8_calibrator keeps the calibrator alive; set_calibration_profile, ITensor.dynamic_range and CalibrationAlgoType
// come with them.
#include "callbacks.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::python
{
namespace
{

using nvinfer1::CalibrationAlgoType;
using nvinfer1::IBuilderConfig;
using nvinfer1::IInt8Calibrator;

//! The methods every calibrator implements in Python; `Base` is the TensorRT class it subclasses.
template <typename Base>
class PyCalibrator : public Base
{
public:
    int32_t getBatchSize() const noexcept override
    {
        return callBack(self(), "IInt8Calibrator", "get_batch_size", 0,
            [](py::function const& method) { return method().template cast<int32_t>(); });
    }
    bool getBatch(void* bindings[], char const* names[], int32_t nbBindings) noexcept override
    {
        return callBack(self(), "IInt8Calibrator", "get_batch", false, [&](py::function const& method) {
            py::list inputs;
            for (int32_t i = 0; i < nbBindings; ++i)
            {
                inputs.append(names[i]);
            }
            py::object const result = method(inputs);
            if (result.is_none())
            {
                return false;
            }
            std::vector<uintptr_t> addresses;
            for (py::handle address : result.cast<py::sequence>())
            {
                addresses.push_back(address.cast<uintptr_t>());
            }
            if (addresses.empty())
            {
                return false;
            }
            if (addresses.size() != static_cast<size_t>(nbBindings))
            {
                throw std::runtime_error("it gave " + std::to_string(addresses.size()) + " addresses for "
                    + std::to_string(nbBindings) + " inputs");
            }
            for (int32_t i = 0; i < nbBindings; ++i)
            {
                bindings[i] = reinterpret_cast<void*>(addresses[static_cast<size_t>(i)]);
            }
            return true;
        });
    }
    void const* readCalibrationCache(std::size_t& length) noexcept override
    {
        return readBytes("read_calibration_cache", mCache, length);
    }
    void writeCalibrationCache(void const* ptr, std::size_t length) noexcept override
    {
        writeBytes("write_calibration_cache", ptr, length);
    }

protected:
    Base const* self() const
    {
        return this;
    }

    //! Calls a method returning bytes (or None) and keeps them in `kept` for Kiln to read.
    void const* readBytes(char const* name, std::string& kept, std::size_t& length)
    {
        length = 0;
        bool const got = callBack(self(), "IInt8Calibrator", name, false, [&](py::function const& method) {
            py::object const result = method();
            kept = result.is_none() ? std::string() : std::string(py::bytes(result));
            return true;
        });
        length = got ? kept.size() : 0;
        return length > 0 ? kept.data() : nullptr;
    }
    void writeBytes(char const* name, void const* ptr, std::size_t length)
    {
        callBack(self(), "IInt8Calibrator", name, false, [&](py::function const& method) {
            method(py::bytes(static_cast<char const*>(ptr), length));
            return true;
        });
    }

private:
    std::string mCache;
};

//! trt.IInt8Calibrator: the algorithm comes from the subclass's get_algorithm().
class PyBaseCalibrator final : public PyCalibrator<IInt8Calibrator>
{
public:
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"IInt8Calibrator", 1, 0};
    }
    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return callBack(self(), "IInt8Calibrator", "get_algorithm", CalibrationAlgoType::kENTROPY_CALIBRATION_2,
            [](py::function const& method) { return method().cast<CalibrationAlgoType>(); });
    }
};

class PyLegacyCalibrator final : public PyCalibrator<nvinfer1::IInt8LegacyCalibrator>
{
public:
    double getQuantile() const noexcept override
    {
        return callBack(self(), "IInt8LegacyCalibrator", "get_quantile", 1.0,
            [](py::function const& method) { return method().cast<double>(); });
    }
    double getRegressionCutoff() const noexcept override
    {
        return callBack(self(), "IInt8LegacyCalibrator", "get_regression_cutoff", 1.0,
            [](py::function const& method) { return method().cast<double>(); });
    }
    void const* readHistogramCache(std::size_t& length) noexcept override
    {
        return readBytes("read_histogram_cache", mHistograms, length);
    }
    void writeHistogramCache(void const* ptr, std::size_t length) noexcept override
    {
        writeBytes("write_histogram_cache", ptr, length);
    }

private:
    std::string mHistograms;
};

char const* const kCALIBRATOR_DOC
    = "Subclasses call the base __init__ and implement get_batch_size(), get_batch(names) -> one memory address per "
      "input (host memory for the CPU backend, device memory for CUDA; None or [] when the data is exhausted), "
      "read_calibration_cache() -> bytes or None and write_calibration_cache(cache).";

void bindTensorRanges(py::module_& m)
{
    auto tensor = py::reinterpret_borrow<py::class_<nvinfer1::ITensor>>(m.attr("ITensor"));
    tensor.def_property(
        "dynamic_range",
        [](nvinfer1::ITensor const& self) -> py::object {
            if (!self.dynamicRangeIsSet())
            {
                return py::none();
            }
            return py::make_tuple(self.getDynamicRangeMin(), self.getDynamicRangeMax());
        },
        [](nvinfer1::ITensor& self, py::object const& range) {
            if (range.is_none())
            {
                self.resetDynamicRange();
                return;
            }
            auto const bounds = range.cast<py::sequence>();
            if (bounds.size() != 2 || !self.setDynamicRange(bounds[0].cast<float>(), bounds[1].cast<float>()))
            {
                throw py::value_error("ITensor.dynamic_range: give (min, max) with min <= max, both finite");
            }
        },
        "(min, max) for INT8 implicit quantization, or None (reset).");
    tensor.def("set_dynamic_range", &nvinfer1::ITensor::setDynamicRange, py::arg("min"), py::arg("max"));
    tensor.def("reset_dynamic_range", &nvinfer1::ITensor::resetDynamicRange);
}

} // namespace

void bindCalibrators(py::module_& m, py::class_<IBuilderConfig>& config)
{
    py::enum_<CalibrationAlgoType>(m, "CalibrationAlgoType", "The algorithm an INT8 calibrator asks for.")
        .value("LEGACY_CALIBRATION", CalibrationAlgoType::kLEGACY_CALIBRATION)
        .value("ENTROPY_CALIBRATION", CalibrationAlgoType::kENTROPY_CALIBRATION)
        .value("ENTROPY_CALIBRATION_2", CalibrationAlgoType::kENTROPY_CALIBRATION_2)
        .value("MINMAX_CALIBRATION", CalibrationAlgoType::kMINMAX_CALIBRATION);
    py::class_<IInt8Calibrator, PyBaseCalibrator>(m, "IInt8Calibrator",
        (std::string("An INT8 calibrator that names its algorithm with get_algorithm(). ") + kCALIBRATOR_DOC).c_str())
        .def(py::init<>());
    py::class_<nvinfer1::IInt8EntropyCalibrator2, IInt8Calibrator, PyCalibrator<nvinfer1::IInt8EntropyCalibrator2>>(
        m, "IInt8EntropyCalibrator2", kCALIBRATOR_DOC)
        .def(py::init<>());
    py::class_<nvinfer1::IInt8EntropyCalibrator, IInt8Calibrator, PyCalibrator<nvinfer1::IInt8EntropyCalibrator>>(
        m, "IInt8EntropyCalibrator", kCALIBRATOR_DOC)
        .def(py::init<>());
    py::class_<nvinfer1::IInt8MinMaxCalibrator, IInt8Calibrator, PyCalibrator<nvinfer1::IInt8MinMaxCalibrator>>(
        m, "IInt8MinMaxCalibrator", kCALIBRATOR_DOC)
        .def(py::init<>());
    py::class_<nvinfer1::IInt8LegacyCalibrator, IInt8Calibrator, PyLegacyCalibrator>(m, "IInt8LegacyCalibrator",
        (std::string(kCALIBRATOR_DOC)
            + " Also get_quantile(), get_regression_cutoff(), read_histogram_cache() and write_histogram_cache(cache).")
            .c_str())
        .def(py::init<>());
    config.def_property("int8_calibrator",
        py::cpp_function(
            [](IBuilderConfig const& self) { return self.getInt8Calibrator(); }, py::return_value_policy::reference),
        py::cpp_function([](IBuilderConfig& self, IInt8Calibrator* calibrator) { self.setInt8Calibrator(calibrator); },
            py::keep_alive<1, 2>()),
        "The INT8 calibrator builds with kINT8 call (None: none); kept alive with the config.");
    config
        .def("set_calibration_profile", &IBuilderConfig::setCalibrationProfile, py::arg("profile"),
            py::keep_alive<1, 2>(), "The shapes (kOPT) calibration runs at; False for a profile that is not valid.")
        .def("get_calibration_profile", &IBuilderConfig::getCalibrationProfile, py::return_value_policy::reference);
    bindTensorRanges(m);
}

} // namespace kiln::python
