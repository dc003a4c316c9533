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
 * The peer returned no receive credit for {@link RdmaChannelOption#CREDIT_TIMEOUT_MILLIS} while data
 * waited to be sent: the writes waiting fail with it, the pipeline sees it in
 * {@code exceptionCaught}, and the channel closes. A peer that stopped reading for that long, or never
 * returns the credit it owes, is treated as a TCP socket whose peer's window stays shut past
 * {@code TCP_USER_TIMEOUT}.
 */
public final class RdmaCreditTimeoutException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with the message that says what waited and for how long. */
    public RdmaCreditTimeoutException(String message) {
        super(message);
    }
}
