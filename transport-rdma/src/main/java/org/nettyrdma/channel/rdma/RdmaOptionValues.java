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

import static io.netty.util.internal.ObjectUtil.checkInRange;
import static io.netty.util.internal.ObjectUtil.checkPositiveOrZero;

import org.nettyrdma.channel.rdma.internal.ConnectParameters;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The values of a connection's {@link RdmaChannelOption}s, with their defaults and their bounds: how its
 * queue pair and receive slots are sized, how long its timers wait, which memory and receive queue it
 * uses, and whether TCP carries it where RDMA cannot. {@link RdmaSocketChannelConfig} answers for them to
 * users and forwards here; a connection reads them once, when its set-up begins ({@code ConnectionSettings}).
 * Fields are volatile: a user may set a value from any thread while the event loop reads it.
 */
final class RdmaOptionValues {

    private volatile int receiveSlots = 64;
    private volatile int slotSize = 8192;
    private volatile int sendQueueDepth = 128;
    private volatile int maxInlineData = 128;
    private volatile int keepAliveIdleMillis = 60_000;
    private volatile int helloTimeoutMillis = 10_000;
    private volatile int creditTimeoutMillis = 60_000;
    private volatile int ringIdleMillis = 2_000;
    private volatile boolean receiveInPlace;
    private volatile boolean exposeMemory;
    private volatile boolean sharedReceiveQueue;
    private volatile int rnrRetryCount = ConnectParameters.RNR_RETRY_COUNT;
    private volatile boolean tcpFallback = true;

    int receiveSlots() {
        return receiveSlots;
    }

    void receiveSlots(int receiveSlots) {
        this.receiveSlots = checkInRange(receiveSlots, RdmaProtocol.MIN_SLOTS, 4096, "receiveSlots");
    }

    int slotSize() {
        return slotSize;
    }

    void slotSize(int slotSize) {
        this.slotSize = checkInRange(slotSize, 256, RdmaProtocol.MAX_SLOT_SIZE, "slotSize");
    }

    int sendQueueDepth() {
        return sendQueueDepth;
    }

    void sendQueueDepth(int sendQueueDepth) {
        this.sendQueueDepth = checkInRange(sendQueueDepth, 4, 4096, "sendQueueDepth");
    }

    int maxInlineData() {
        return maxInlineData;
    }

    void maxInlineData(int maxInlineData) {
        this.maxInlineData = checkInRange(maxInlineData, 0, 1024, "maxInlineData");
    }

    int keepAliveIdleMillis() {
        return keepAliveIdleMillis;
    }

    void keepAliveIdleMillis(int keepAliveIdleMillis) {
        this.keepAliveIdleMillis = checkInRange(keepAliveIdleMillis, 1, Integer.MAX_VALUE, "keepAliveIdleMillis");
    }

    int helloTimeoutMillis() {
        return helloTimeoutMillis;
    }

    void helloTimeoutMillis(int helloTimeoutMillis) {
        this.helloTimeoutMillis = checkInRange(helloTimeoutMillis, 1, Integer.MAX_VALUE, "helloTimeoutMillis");
    }

    int creditTimeoutMillis() {
        return creditTimeoutMillis;
    }

    void creditTimeoutMillis(int creditTimeoutMillis) {
        this.creditTimeoutMillis = checkPositiveOrZero(creditTimeoutMillis, "creditTimeoutMillis");
    }

    int ringIdleMillis() {
        return ringIdleMillis;
    }

    void ringIdleMillis(int ringIdleMillis) {
        this.ringIdleMillis = checkPositiveOrZero(ringIdleMillis, "ringIdleMillis");
    }

    boolean receiveInPlace() {
        return receiveInPlace;
    }

    void receiveInPlace(boolean receiveInPlace) {
        this.receiveInPlace = receiveInPlace;
    }

    boolean exposeMemory() {
        return exposeMemory;
    }

    void exposeMemory(boolean exposeMemory) {
        this.exposeMemory = exposeMemory;
    }

    boolean sharedReceiveQueue() {
        return sharedReceiveQueue;
    }

    void sharedReceiveQueue(boolean sharedReceiveQueue) {
        this.sharedReceiveQueue = sharedReceiveQueue;
    }

    int rnrRetryCount() {
        return rnrRetryCount;
    }

    void rnrRetryCount(int rnrRetryCount) {
        this.rnrRetryCount = checkInRange(rnrRetryCount, 0, 7, "rnrRetryCount");
    }

    boolean tcpFallback() {
        return tcpFallback;
    }

    void tcpFallback(boolean tcpFallback) {
        this.tcpFallback = tcpFallback;
    }
}
