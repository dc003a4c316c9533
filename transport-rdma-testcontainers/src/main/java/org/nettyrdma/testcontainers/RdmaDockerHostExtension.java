/*
 * Copyright 2026 The netty-rdma Project
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *   https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package org.nettyrdma.testcontainers;

import java.util.Optional;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The extension behind {@link RequiresRdmaDockerHost}: skips the class in its condition, or fails it
 * before its containers start. The answer is computed once per class.
 */
final class RdmaDockerHostExtension implements ExecutionCondition, BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(RdmaDockerHostExtension.class);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (!skipWhenMissing(context)) {
            return ConditionEvaluationResult.enabled("a missing RDMA device fails the class");
        }
        Optional<String> problem = problem(context);
        return problem.isPresent()
                ? ConditionEvaluationResult.disabled(problem.get())
                : ConditionEvaluationResult.enabled("the Docker host has an RDMA device");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!skipWhenMissing(context)) {
            problem(context).ifPresent(problem -> {
                throw new IllegalStateException(problem);
            });
        }
    }

    private static boolean skipWhenMissing(ExtensionContext context) {
        return context.getTestClass()
                .flatMap(type -> AnnotationSupport.findAnnotation(type, RequiresRdmaDockerHost.class))
                .map(RequiresRdmaDockerHost::skip)
                .orElse(false);
    }

    @SuppressWarnings("unchecked")
    private static Optional<String> problem(ExtensionContext context) {
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        return store.getOrComputeIfAbsent("problem", key -> RdmaDockerHost.problem(), Optional.class);
    }
}
