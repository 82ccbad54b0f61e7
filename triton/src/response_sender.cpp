#include "response_sender.h"

#include "server_log.h"

#include <chrono>
#include <string>
#include <utility>

namespace kiln::triton
{
namespace
{

//! Logs failure (deleting it) under what; true where there was none.
bool succeeded(TRITONSERVER_Error* failure, char const* what)
{
    if (failure == nullptr)
    {
        return true;
    }
    logError(std::string("Kiln: ") + what + ": " + TRITONSERVER_ErrorMessage(failure));
    TRITONSERVER_ErrorDelete(failure);
    return false;
}

} // namespace

uint64_t ResponseSender::now()
{
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

ResponseSender::ResponseSender(TRITONBACKEND_ModelInstance* instance)
    : mInstance(instance)
    , mThread([this] { sendPosted(); })
{
}

ResponseSender::~ResponseSender()
{
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mStopping = true;
    }
    mPosted.notify_one();
    mThread.join();
}

void ResponseSender::post(Batch batch)
{
    if (batch.answers.size() == 1)
    {
        // Handing a lone response over would add the sending thread's wake-up (tens of microseconds) to its latency,
        // more than the instance gains by not sending it itself.
        send(batch);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mQueue.push_back(std::move(batch));
    }
    mPosted.notify_one();
}

void ResponseSender::sendPosted()
{
    std::unique_lock<std::mutex> lock(mMutex);
    while (true)
    {
        mPosted.wait(lock, [this] { return mStopping || !mQueue.empty(); });
        if (mQueue.empty())
        {
            return; // stopping, with nothing left to send
        }
        Batch batch = std::move(mQueue.front());
        mQueue.pop_front();
        lock.unlock();
        send(batch);
        lock.lock();
    }
}

void ResponseSender::send(Batch& batch) const
{
    for (Answer& answer : batch.answers)
    {
        bool sent = answer.response != nullptr
            || succeeded(TRITONBACKEND_ResponseNew(&answer.response, answer.request), "cannot make a response");
        sent = sent
            && succeeded(TRITONBACKEND_ResponseSend(answer.response, kTritonResponseCompleteFinal, answer.error),
                "cannot send a response");
        bool const success = sent && answer.error == nullptr;
        if (answer.error != nullptr)
        {
            if (!sent)
            {
                logError(
                    std::string("Kiln: a request's error went unsent: ") + TRITONSERVER_ErrorMessage(answer.error));
            }
            TRITONSERVER_ErrorDelete(answer.error);
        }
        uint64_t const end = now();
        succeeded(TRITONBACKEND_ModelInstanceReportStatistics(
                      mInstance, answer.request, success, batch.times[0], batch.times[1], batch.times[2], end),
            "cannot report request statistics");
        succeeded(TRITONBACKEND_RequestRelease(answer.request, kTritonRequestReleaseAll), "cannot release a request");
    }
    if (batch.rows > 0)
    {
        succeeded(TRITONBACKEND_ModelInstanceReportBatchStatistics(
                      mInstance, batch.rows, batch.times[0], batch.times[1], batch.times[2], now()),
            "cannot report batch statistics");
    }
}

} // namespace kiln::triton
