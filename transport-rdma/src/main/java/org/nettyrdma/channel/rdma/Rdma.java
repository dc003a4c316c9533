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
package org.nettyrdma.channel.rdma;

import java.nio.file.Files;
import java.nio.file.Path;

import io.netty.channel.epoll.Epoll;
import org.nettyrdma.channel.rdma.internal.NativeLibrary;

/**
 * Tells whether the RDMA transport can be used here, and if not, why: without throwing, as Netty's
 * {@code Epoll} and {@code IoUring} do.
 */
public final class Rdma {

    private static final Path RDMA_CM = Path.of("/dev/infiniband/rdma_cm");
    private static final Throwable UNAVAILABILITY_CAUSE = check();

    private Rdma() {
    }

    private static Throwable check() {
        if (!Epoll.isAvailable()) {
            return new UnsupportedOperationException("the RDMA transport runs on Netty's epoll, which is "
                    + "unavailable", Epoll.unavailabilityCause());
        }
        Throwable nativeProblem = NativeLibrary.unavailabilityCause();
        if (nativeProblem != null) {
            return nativeProblem;
        }
        if (!Files.exists(RDMA_CM)) {
            return new UnsupportedOperationException(RDMA_CM + " does not exist: no RDMA device or the "
                    + "rdma_ucm kernel module is not loaded (modprobe rdma_ucm; for Soft-RoCE: modprobe "
                    + "rdma_rxe and rdma link add rxe0 type rxe netdev <interface>)");
        }
        return null;
    }

    /** Returns {@code true} if the RDMA transport can be used. */
    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /**
     * Ensures the RDMA transport can be used.
     *
     * @throws UnsatisfiedLinkError with the reason when it cannot
     */
    public static void ensureAvailability() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (Error) new UnsatisfiedLinkError("the RDMA transport is unavailable: "
                    + UNAVAILABILITY_CAUSE.getMessage()).initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /** Returns why the RDMA transport cannot be used, or {@code null} if it can. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }
}
