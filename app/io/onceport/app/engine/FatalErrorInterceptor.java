package io.onceport.app.engine;

import io.onceport.shared.runtime.FatalErrors;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;

/**
 * Hands an {@code Error} thrown by activity or workflow code to {@link FatalErrors#report}. The
 * SDK's task executors catch {@code Throwable}: an OutOfMemoryError in an activity became an
 * activity failure and the worker went on with whatever state the error left behind. With {@code
 * FatalErrors} installed (by {@code Main}) the process ends instead, and the engine sees a lost
 * worker — the case the replay policy is built for — rather than a half-alive one.
 *
 * <p>In workflow code only a {@link VirtualMachineError} is reported: the SDK unwinds evicted
 * workflow threads with an {@code Error} of its own, which must pass.
 */
public final class FatalErrorInterceptor extends WorkerInterceptorBase {
  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      @Override
      public ActivityOutput execute(ActivityInput input) {
        try {
          return super.execute(input);
        } catch (Error e) {
          FatalErrors.report(e);
          throw e;
        }
      }
    };
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public WorkflowOutput execute(WorkflowInput input) {
        try {
          return super.execute(input);
        } catch (VirtualMachineError e) {
          FatalErrors.report(e);
          throw e;
        }
      }
    };
  }
}
