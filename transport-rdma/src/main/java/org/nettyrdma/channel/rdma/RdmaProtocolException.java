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
 * The peer broke the wire protocol (docs/protocol.md): a field out of range, a message of an unknown
 * type, credits it was never granted, a write outside the region it was invited to write. The
 * connection that saw it is closed; no other connection is affected. The message names the field
 * and the value.
 */
public final class RdmaProtocolException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Creates an exception whose message names the violated rule and the offending value. */
    public RdmaProtocolException(String message) {
        super(message);
    }
}
