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
package org.nettyrdma.benchmark;

/**
 * The server side's verbs of one connection's set-up in {@link IsolationCost}, in nanoseconds; 0 where the
 * design has none.
 */
record IsolationSetUp(long allocPd, long regSlots, long regRing, long regSend, long createQp, long allocMw,
                      long bind) {

    /** The three registrations of the connection's own memory. */
    long registrations() {
        return regSlots + regRing + regSend;
    }

    /** Every verb of the set-up. */
    long all() {
        return allocPd + registrations() + createQp + allocMw + bind;
    }

    /** The same times with the window's allocation and bind. */
    IsolationSetUp withWindow(long allocMwNanos, long bindNanos) {
        return new IsolationSetUp(allocPd, regSlots, regRing, regSend, createQp, allocMwNanos, bindNanos);
    }
}
