// The part of Triton Inference Server's C API that Kiln's backend uses, declared here so that the backend builds
// without Triton's headers or libraries: the symbols resolve against the server that loads the backend.
//
// The facts (function names, parameter lists, enumerator values, the API version) come from Triton's documented
// backend API: the TRITONBACKEND_* and TRITONSERVER_* functions of tritonbackend.h and tritonserver.h, version 1.19
// of the backend API, which Triton 2.51 (PyPI's nvidia-pytriton 0.7.0) reports through TRITONBACKEND_ApiVersion.
// Only what the backend calls or implements is declared. Enumerators keep the values the API gives them: they cross
// the boundary as integers.
#pragma once

#include <cstddef>
#include <cstdint>

// The backend's entry points, looked up by name when the server loads libtriton_kiln.so.
#define KILN_TRITON_EXPORT __attribute__((visibility("default")))

extern "C"
{

    // Opaque objects the server owns.
    struct TRITONSERVER_Error;
    struct TRITONSERVER_Message;
    struct TRITONBACKEND_Backend;
    struct TRITONBACKEND_BackendAttribute;
    struct TRITONBACKEND_Model;
    struct TRITONBACKEND_ModelInstance;
    struct TRITONBACKEND_Request;
    struct TRITONBACKEND_Response;
    struct TRITONBACKEND_Input;
    struct TRITONBACKEND_Output;

    // The backend API version Kiln's backend is written against: the server's major version must equal it and its
    // minor version must be at least this one.
    constexpr uint32_t kTritonBackendApiMajor = 1;
    constexpr uint32_t kTritonBackendApiMinor = 19;

    typedef enum TRITONSERVER_datatype_enum
    {
        TRITONSERVER_TYPE_INVALID = 0,
        TRITONSERVER_TYPE_BOOL = 1,
        TRITONSERVER_TYPE_UINT8 = 2,
        TRITONSERVER_TYPE_UINT16 = 3,
        TRITONSERVER_TYPE_UINT32 = 4,
        TRITONSERVER_TYPE_UINT64 = 5,
        TRITONSERVER_TYPE_INT8 = 6,
        TRITONSERVER_TYPE_INT16 = 7,
        TRITONSERVER_TYPE_INT32 = 8,
        TRITONSERVER_TYPE_INT64 = 9,
        TRITONSERVER_TYPE_FP16 = 10,
        TRITONSERVER_TYPE_FP32 = 11,
        TRITONSERVER_TYPE_FP64 = 12,
        TRITONSERVER_TYPE_BYTES = 13,
        TRITONSERVER_TYPE_BF16 = 14
    } TRITONSERVER_DataType;

    typedef enum TRITONSERVER_memorytype_enum
    {
        TRITONSERVER_MEMORY_CPU = 0,
        TRITONSERVER_MEMORY_CPU_PINNED = 1,
        TRITONSERVER_MEMORY_GPU = 2
    } TRITONSERVER_MemoryType;

    typedef enum TRITONSERVER_instancegroupkind_enum
    {
        TRITONSERVER_INSTANCEGROUPKIND_AUTO = 0,
        TRITONSERVER_INSTANCEGROUPKIND_CPU = 1,
        TRITONSERVER_INSTANCEGROUPKIND_GPU = 2,
        TRITONSERVER_INSTANCEGROUPKIND_MODEL = 3
    } TRITONSERVER_InstanceGroupKind;

    typedef enum TRITONSERVER_loglevel_enum
    {
        TRITONSERVER_LOG_INFO = 0,
        TRITONSERVER_LOG_WARN = 1,
        TRITONSERVER_LOG_ERROR = 2,
        TRITONSERVER_LOG_VERBOSE = 3
    } TRITONSERVER_LogLevel;

    typedef enum TRITONSERVER_errorcode_enum
    {
        TRITONSERVER_ERROR_UNKNOWN = 0,
        TRITONSERVER_ERROR_INTERNAL = 1,
        TRITONSERVER_ERROR_NOT_FOUND = 2,
        TRITONSERVER_ERROR_INVALID_ARG = 3,
        TRITONSERVER_ERROR_UNAVAILABLE = 4,
        TRITONSERVER_ERROR_UNSUPPORTED = 5,
        TRITONSERVER_ERROR_ALREADY_EXISTS = 6
    } TRITONSERVER_Error_Code;

    typedef enum TRITONBACKEND_artifacttype_enum
    {
        TRITONBACKEND_ARTIFACT_FILESYSTEM = 0
    } TRITONBACKEND_ArtifactType;

    // Flags: a request handed back with RELEASE_ALL is done with; a response sent with COMPLETE_FINAL is its
    // request's last.
    constexpr uint32_t kTritonRequestReleaseAll = 1;
    constexpr uint32_t kTritonResponseCompleteFinal = 1;

    // Errors and messages (JSON documents such as a model's configuration).
    TRITONSERVER_Error* TRITONSERVER_ErrorNew(TRITONSERVER_Error_Code code, char const* message);
    void TRITONSERVER_ErrorDelete(TRITONSERVER_Error* error);
    TRITONSERVER_Error_Code TRITONSERVER_ErrorCode(TRITONSERVER_Error* error);
    char const* TRITONSERVER_ErrorMessage(TRITONSERVER_Error* error);
    TRITONSERVER_Error* TRITONSERVER_MessageNewFromSerializedJson(
        TRITONSERVER_Message** message, char const* base, size_t byteSize);
    TRITONSERVER_Error* TRITONSERVER_MessageDelete(TRITONSERVER_Message* message);
    TRITONSERVER_Error* TRITONSERVER_MessageSerializeToJson(
        TRITONSERVER_Message* message, char const** base, size_t* byteSize);
    bool TRITONSERVER_LogIsEnabled(TRITONSERVER_LogLevel level);
    TRITONSERVER_Error* TRITONSERVER_LogMessage(
        TRITONSERVER_LogLevel level, char const* file, int const line, char const* message);

    // The backend, models and instances.
    TRITONSERVER_Error* TRITONBACKEND_ApiVersion(uint32_t* major, uint32_t* minor);
    TRITONSERVER_Error* TRITONBACKEND_BackendName(TRITONBACKEND_Backend* backend, char const** name);
    TRITONSERVER_Error* TRITONBACKEND_BackendConfig(TRITONBACKEND_Backend* backend, TRITONSERVER_Message** config);
    TRITONSERVER_Error* TRITONBACKEND_BackendState(TRITONBACKEND_Backend* backend, void** state);
    TRITONSERVER_Error* TRITONBACKEND_BackendSetState(TRITONBACKEND_Backend* backend, void* state);
    TRITONSERVER_Error* TRITONBACKEND_BackendAttributeAddPreferredInstanceGroup(
        TRITONBACKEND_BackendAttribute* attributes, TRITONSERVER_InstanceGroupKind const kind, uint64_t const count,
        uint64_t const* deviceIds, uint64_t const idCount);

    TRITONSERVER_Error* TRITONBACKEND_ModelName(TRITONBACKEND_Model* model, char const** name);
    TRITONSERVER_Error* TRITONBACKEND_ModelVersion(TRITONBACKEND_Model* model, uint64_t* version);
    TRITONSERVER_Error* TRITONBACKEND_ModelRepository(
        TRITONBACKEND_Model* model, TRITONBACKEND_ArtifactType* artifactType, char const** location);
    TRITONSERVER_Error* TRITONBACKEND_ModelConfig(
        TRITONBACKEND_Model* model, uint32_t const configVersion, TRITONSERVER_Message** config);
    TRITONSERVER_Error* TRITONBACKEND_ModelAutoCompleteConfig(TRITONBACKEND_Model* model, bool* autoComplete);
    TRITONSERVER_Error* TRITONBACKEND_ModelSetConfig(
        TRITONBACKEND_Model* model, uint32_t const configVersion, TRITONSERVER_Message* config);
    TRITONSERVER_Error* TRITONBACKEND_ModelBackend(TRITONBACKEND_Model* model, TRITONBACKEND_Backend** backend);
    TRITONSERVER_Error* TRITONBACKEND_ModelState(TRITONBACKEND_Model* model, void** state);
    TRITONSERVER_Error* TRITONBACKEND_ModelSetState(TRITONBACKEND_Model* model, void* state);

    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceName(TRITONBACKEND_ModelInstance* instance, char const** name);
    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceKind(
        TRITONBACKEND_ModelInstance* instance, TRITONSERVER_InstanceGroupKind* kind);
    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceDeviceId(TRITONBACKEND_ModelInstance* instance, int32_t* deviceId);
    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceModel(
        TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Model** model);
    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceState(TRITONBACKEND_ModelInstance* instance, void** state);
    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceSetState(TRITONBACKEND_ModelInstance* instance, void* state);
    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceReportStatistics(TRITONBACKEND_ModelInstance* instance,
        TRITONBACKEND_Request* request, bool const success, uint64_t const execStartNs, uint64_t const computeStartNs,
        uint64_t const computeEndNs, uint64_t const execEndNs);
    TRITONSERVER_Error* TRITONBACKEND_ModelInstanceReportBatchStatistics(TRITONBACKEND_ModelInstance* instance,
        uint64_t const batchSize, uint64_t const execStartNs, uint64_t const computeStartNs,
        uint64_t const computeEndNs, uint64_t const execEndNs);

    // Requests, their inputs, and responses with their outputs.
    TRITONSERVER_Error* TRITONBACKEND_RequestInputCount(TRITONBACKEND_Request* request, uint32_t* count);
    TRITONSERVER_Error* TRITONBACKEND_RequestInputByIndex(
        TRITONBACKEND_Request* request, uint32_t const index, TRITONBACKEND_Input** input);
    TRITONSERVER_Error* TRITONBACKEND_RequestOutputCount(TRITONBACKEND_Request* request, uint32_t* count);
    TRITONSERVER_Error* TRITONBACKEND_RequestOutputName(
        TRITONBACKEND_Request* request, uint32_t const index, char const** name);
    TRITONSERVER_Error* TRITONBACKEND_RequestRelease(TRITONBACKEND_Request* request, uint32_t releaseFlags);
    TRITONSERVER_Error* TRITONBACKEND_InputProperties(TRITONBACKEND_Input* input, char const** name,
        TRITONSERVER_DataType* dataType, int64_t const** shape, uint32_t* dimsCount, uint64_t* byteSize,
        uint32_t* bufferCount);
    TRITONSERVER_Error* TRITONBACKEND_InputBuffer(TRITONBACKEND_Input* input, uint32_t const index, void const** buffer,
        uint64_t* bufferByteSize, TRITONSERVER_MemoryType* memoryType, int64_t* memoryTypeId);
    TRITONSERVER_Error* TRITONBACKEND_ResponseNew(TRITONBACKEND_Response** response, TRITONBACKEND_Request* request);
    TRITONSERVER_Error* TRITONBACKEND_ResponseDelete(TRITONBACKEND_Response* response);
    TRITONSERVER_Error* TRITONBACKEND_ResponseOutput(TRITONBACKEND_Response* response, TRITONBACKEND_Output** output,
        char const* name, TRITONSERVER_DataType const dataType, int64_t const* shape, uint32_t const dimsCount);
    TRITONSERVER_Error* TRITONBACKEND_OutputBuffer(TRITONBACKEND_Output* output, void** buffer,
        uint64_t const bufferByteSize, TRITONSERVER_MemoryType* memoryType, int64_t* memoryTypeId);
    TRITONSERVER_Error* TRITONBACKEND_ResponseSend(
        TRITONBACKEND_Response* response, uint32_t const sendFlags, TRITONSERVER_Error* error);

    // What the backend implements (triton/src/backend_entry_points.cpp).
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_Initialize(TRITONBACKEND_Backend* backend);
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_Finalize(TRITONBACKEND_Backend* backend);
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_GetBackendAttribute(
        TRITONBACKEND_Backend* backend, TRITONBACKEND_BackendAttribute* attributes);
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model* model);
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model* model);
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInstanceInitialize(TRITONBACKEND_ModelInstance* instance);
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInstanceFinalize(TRITONBACKEND_ModelInstance* instance);
    KILN_TRITON_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInstanceExecute(
        TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t const requestCount);

} // extern "C"
