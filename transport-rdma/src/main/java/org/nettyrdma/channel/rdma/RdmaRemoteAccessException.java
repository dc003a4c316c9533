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

import java.io.IOException;

/**
 * A one-sided operation the peer's device refused: the key is revoked, was exposed on another
 * connection, does not grant the access, or the request falls outside the exposed bounds. The device
 * moves both queue pairs to the error state on such a refusal, so the channel closes as well; the
 * exposing side's memory is unchanged.
 */
public final class RdmaRemoteAccessException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with {@code message}. */
    public RdmaRemoteAccessException(String message) {
        super(message);
    }
}
