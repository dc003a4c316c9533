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
package org.nettyrdma.testkit;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.junit.jupiter.api.TestInfo;

/**
 * The seed of a randomised test: taken from {@code RDMA_TEST_SEED} if set (to replay a failure; the
 * variable reaches the VM like the rest of the caller's environment), otherwise new each run. It is
 * printed before the test starts, so a failed run's output always holds it.
 */
public final class TestSeed {

    private static final String VARIABLE = "RDMA_TEST_SEED";

    private TestSeed() {
    }

    public static long of(TestInfo test) {
        String fixed = System.getenv(VARIABLE);
        long seed = fixed != null ? Long.parseLong(fixed.trim()) : System.nanoTime();
        // The launcher finds a method with parameters only by its full signature.
        Method method = test.getTestMethod().orElseThrow();
        String parameters = Arrays.stream(method.getParameterTypes()).map(Class::getName)
                .collect(Collectors.joining(","));
        String selector = test.getTestClass().orElseThrow().getName() + '#' + method.getName() + '(' + parameters + ')';
        System.out.println(test.getDisplayName() + ": seed " + seed + " (replay: " + VARIABLE + '=' + seed
                + " scripts/device-tests --select-method '" + selector + "')");
        return seed;
    }
}
