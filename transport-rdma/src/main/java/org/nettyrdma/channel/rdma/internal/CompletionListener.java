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
package org.nettyrdma.channel.rdma.internal;

/** Takes the work completions of one queue pair, which its channel's handle hands on, on its event loop. */
public interface CompletionListener {

    /**
     * Handles one work completion. For an error completion only {@code wrId}, {@code status} and
     * {@code opcode} are meaningful ({@code opcode} is not, for flushed receives); {@code flags} are the
     * completion's {@code wc_flags} ({@code RdmaNative.WC_WITH_INV}).
     */
    void onCompletion(long wrId, int status, int opcode, int byteLength, int immediate, int flags);
}
