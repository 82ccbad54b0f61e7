// The functions the server calls: each turns the server's handles into the backend's objects and every exception
// into a TRITONSERVER_Error, so that a failing model or request never takes the server down.
#include "backend_error.h"
#include "kiln_triton/triton_api.h"
#include "model_config.h"
#include "model_instance.h"
#include "model_state.h"
#include "server_log.h"

#include <kiln/Backend.h>

#include <memory>
#include <string>

namespace
{

using namespace kiln::triton;

template <typename T, typename Owner>
T* stateOf(Owner* owner, TRITONSERVER_Error* (*get)(Owner*, void**) )
{
    void* state = nullptr;
    check(get(owner, &state), "the server lost the backend's state");
    return static_cast<T*>(state);
}

} // namespace

extern "C"
{

    TRITONSERVER_Error* TRITONBACKEND_Initialize(TRITONBACKEND_Backend* backend)
    {
        return guarded([&] {
            uint32_t major = 0;
            uint32_t minor = 0;
            check(TRITONBACKEND_ApiVersion(&major, &minor), "cannot get the server's backend API version");
            if (major != kTritonBackendApiMajor || minor < kTritonBackendApiMinor)
            {
                throw BackendError(TRITONSERVER_ERROR_UNSUPPORTED,
                    "Kiln's backend needs Triton's backend API " + std::to_string(kTritonBackendApiMajor) + "."
                        + std::to_string(kTritonBackendApiMinor) + " or a later minor version; this server has "
                        + std::to_string(major) + "." + std::to_string(minor));
            }
            auto settings = std::make_unique<BackendSettings>(readBackendSettings(backend));
            check(TRITONBACKEND_BackendSetState(backend, settings.get()), "cannot keep the backend's settings");
            settings.release();
            logInfo("Kiln: backend ready (Kiln " + std::to_string(getInferLibVersion()) + ", backend API "
                + std::to_string(major) + "." + std::to_string(minor) + ")");
        });
    }

    TRITONSERVER_Error* TRITONBACKEND_Finalize(TRITONBACKEND_Backend* backend)
    {
        return guarded([&] { delete stateOf<BackendSettings>(backend, &TRITONBACKEND_BackendState); });
    }

    TRITONSERVER_Error* TRITONBACKEND_GetBackendAttribute(
        TRITONBACKEND_Backend*, TRITONBACKEND_BackendAttribute* attributes)
    {
        // Where the configuration names no instance group: one instance on each GPU where Kiln's CUDA backend
        // can run, else one on the CPU.
        return guarded([&] {
            bool const gpu = kiln::backendAvailable(kiln::Backend::kCUDA);
            check(TRITONBACKEND_BackendAttributeAddPreferredInstanceGroup(attributes,
                      gpu ? TRITONSERVER_INSTANCEGROUPKIND_GPU : TRITONSERVER_INSTANCEGROUPKIND_CPU, 1, nullptr, 0),
                "cannot give the preferred instance group");
        });
    }

    TRITONSERVER_Error* TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model* model)
    {
        return guarded([&] {
            TRITONBACKEND_Backend* backend = nullptr;
            check(TRITONBACKEND_ModelBackend(model, &backend), "cannot get the model's backend");
            auto const* settings = stateOf<BackendSettings>(backend, &TRITONBACKEND_BackendState);
            auto state = std::make_unique<ModelState>(model, *settings);
            check(TRITONBACKEND_ModelSetState(model, state.get()), "cannot keep the model's state");
            state.release();
        });
    }

    TRITONSERVER_Error* TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model* model)
    {
        return guarded([&] { delete stateOf<ModelState>(model, &TRITONBACKEND_ModelState); });
    }

    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceInitialize(TRITONBACKEND_ModelInstance* instance)
    {
        return guarded([&] {
            TRITONBACKEND_Model* model = nullptr;
            check(TRITONBACKEND_ModelInstanceModel(instance, &model), "cannot get the instance's model");
            auto* modelState = stateOf<ModelState>(model, &TRITONBACKEND_ModelState);
            auto state = std::make_unique<ModelInstance>(*modelState, instance);
            check(TRITONBACKEND_ModelInstanceSetState(instance, state.get()), "cannot keep the instance's state");
            state.release();
        });
    }

    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceFinalize(TRITONBACKEND_ModelInstance* instance)
    {
        return guarded([&] { delete stateOf<ModelInstance>(instance, &TRITONBACKEND_ModelInstanceState); });
    }

    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceExecute(
        TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t const requestCount)
    {
        // Once the instance is found, it answers and releases every request itself (through its ResponseSender), so
        // success is returned whatever the requests' fate: an error here would hand the requests back to the server.
        ModelInstance* state = nullptr;
        TRITONSERVER_Error* error
            = guarded([&] { state = stateOf<ModelInstance>(instance, &TRITONBACKEND_ModelInstanceState); });
        if (error != nullptr)
        {
            return error;
        }
        try
        {
            state->execute(requests, requestCount);
        }
        catch (std::exception const& e)
        {
            logError(std::string("Kiln: executing a batch of requests failed: ") + e.what());
        }
        return nullptr;
    }

} // extern "C"
