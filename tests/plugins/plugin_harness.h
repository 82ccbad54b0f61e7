// What every test of the plugin collection needs: fields for a creator, and a network of one plugin layer built,
// serialized, loaded and run on a backend (the CPU always; CUDA where a GPU is present).
#pragma once

#include "host_tensor.h"
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{

//! Plugin fields with the values they point at, as an application builds them for createPlugin.
class FieldSet
{
public:
    FieldSet& add(char const* name, int32_t value);
    FieldSet& add(char const* name, float value);
    FieldSet& add(char const* name, std::vector<int32_t> const& values);
    FieldSet& add(char const* name, std::vector<float> const& values);
    FieldSet& add(char const* name, std::string const& text);
    //! Any type and length, for tests of what a creator does with a field of the wrong kind.
    FieldSet& addRaw(char const* name, nvinfer1::PluginFieldType type, std::vector<uint8_t> bytes, int32_t length);
    //! Valid until the next add.
    nvinfer1::PluginFieldCollection const* collection();

private:
    std::deque<std::string> mNames;
    std::deque<std::vector<uint8_t>> mData;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

//! One plugin layer: which creator, and its fields.
struct PluginCall
{
    std::string name;
    std::string version{"1"};
    FieldSet fields;
};

//! Registers the collection once (initLibNvInferPlugins with the empty namespace).
void registerCollection();

//! True where CUDA is built in and a GPU is present.
bool gpuAvailable();

#define SKIP_WITHOUT_GPU()                                                                                             \
    if (!kiln::test::gpuAvailable())                                                                                   \
    {                                                                                                                  \
        GTEST_SKIP() << "no CUDA GPU on this machine";                                                                 \
    }

//! Builds a network whose one layer is the plugin on `inputs` (network inputs "input0", "input1"...) for `backend`,
//! serializes the plan, loads it in a new runtime and runs it once; the first run of each plugin on a backend also
//! checks the plan in another process (plan_in_another_process.h). Returns the outputs in the plugin's order, or
//! none with the failure recorded (EXPECT) and the errors in `errors`, if given. `fp16` sets kFP16 on the builder.
std::vector<HostTensor> runPlugin(kiln::Backend backend, PluginCall& call, std::vector<HostTensor> const& inputs,
    bool fp16 = false, std::string* errors = nullptr);

//! runPlugin for an INT8 plugin: `int8Scales` holds the scale of each network input, then of each output, given to
//! the network as dynamic ranges (127 x scale) that Kiln passes on as PluginTensorDesc::scale.
std::vector<HostTensor> runInt8Plugin(kiln::Backend backend, PluginCall& call, std::vector<HostTensor> const& inputs,
    std::vector<float> const& int8Scales, std::string* errors = nullptr);

//! What creating the plugin from its fields logged as errors ("" when it was created): for bad-field tests.
std::string creationErrors(PluginCall& call);

} // namespace kiln::test
