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

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a JUnit 5 test class only where the Docker host can give containers RDMA ({@link
 * RdmaDockerHost}). Where it cannot, the class fails before its first container starts, with a
 * sentence that says what to do; with {@code skip = true} it is skipped with that sentence instead.
 * Never does it pass without a device.
 *
 * <p>Put it before {@code @Testcontainers}, so that the check runs before any container starts.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RdmaDockerHostExtension.class)
public @interface RequiresRdmaDockerHost {

    /** {@code true}: skip the class where there is no device; {@code false} (the default): fail it. */
    boolean skip() default false;
}
