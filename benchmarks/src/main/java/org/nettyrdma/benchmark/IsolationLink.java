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

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.SVCPostSend;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.ConnectParameters;

/**
 * One {@link IsolationCost} connection: the writing end ({@link VerbsQueuePair}, connected on a thread of
 * its own while this one accepts) and the {@link IsolationTarget} of a design; {@link #stream} drives both
 * from the calling thread, so that the designs' streams differ only in the rkey the target checks.
 */
final class IsolationLink implements AutoCloseable {

    private static final int WRITER_SEND_DEPTH = 128;

    final IsolationTarget target;
    private final IsolationServer server;
    private final VerbsQueuePair writer;
    private final SVCPostSend write;
    private final SVCPostSend.RdmaMod writeTarget;
    private final SVCPostSend signaledWrite;
    private final SVCPostSend.SendWRMod signaledRequest;
    private final SVCPostSend.RdmaMod signaledWriteTarget;

    private IsolationLink(IsolationServer server, VerbsQueuePair writer, IsolationTarget target)
            throws IOException {
        this.server = server;
        this.writer = writer;
        this.target = target;
        ByteBuffer source = ByteBuffer.allocateDirect(IsolationCost.MESSAGE_BYTES);
        IbvMr sourceMr = writer.register(source, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        write = writer.keep(writer.qp().postSend(List.of(write(sourceMr, 0, target.rkey)), null));
        writeTarget = write.getWrMod(0).getRdmaMod();
        signaledWrite = writer.keep(writer.qp().postSend(List.of(write(sourceMr, IbvSendWR.IBV_SEND_SIGNALED,
                target.rkey)), null));
        signaledRequest = signaledWrite.getWrMod(0);
        signaledWriteTarget = signaledRequest.getRdmaMod();
    }

    /** Connects a writer to {@code server} and sets up the target of {@code design} for it. */
    static IsolationLink connect(IsolationServer server, IsolationDesign design) throws IOException {
        AtomicReference<VerbsQueuePair> connected = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        InetSocketAddress address = server.address();
        Thread connecting = new Thread(() -> {
            try {
                VerbsQueuePair pair = VerbsQueuePair.resolve(address, WRITER_SEND_DEPTH, 1, 0,
                        VerbsQueuePair.POLL_BATCH);
                connected.set(pair);
                pair.connect();
            } catch (IOException | RuntimeException e) {
                failure.set(e);
            }
        }, "isolation-cost-connect");
        connecting.setDaemon(true);
        connecting.start();
        IsolationTarget target = null;
        try {
            target = new IsolationTarget(server, server.nextRequestId(), design);
            RdmaNative.accept(Verbs.handle(target.id), ConnectParameters.RNR_RETRY_COUNT, 0, 0);
            server.expect(RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
            if (design.bindsWindow()) {
                target.bindWindow(server);
            }
            connecting.join(TimeUnit.NANOSECONDS.toMillis(IsolationCost.STALL_NANOS));
            if (failure.get() != null || connecting.isAlive()) {
                throw new IOException("the writer did not connect", failure.get());
            }
            return new IsolationLink(server, connected.get(), target);
        } catch (IOException | RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            IOException thrown = e instanceof IOException io ? io : new IOException(e);
            if (target != null) {
                closeQuietly(target, thrown);
            }
            if (connected.get() != null && !connecting.isAlive()) {
                closeQuietly(connected.get(), thrown);
            }
            throw thrown;
        }
    }

    private static void closeQuietly(AutoCloseable resource, Exception cause) {
        try {
            resource.close();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    private IbvSendWR write(IbvMr source, int flags, int rkey) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        request.setSend_flags(flags);
        request.setSg_list(VerbsQueuePair.gather(source, 0, IsolationCost.MESSAGE_BYTES));
        request.getRdma().setRemote_addr(target.ringAddress);
        request.getRdma().setRkey(rkey);
        return request;
    }

    /**
     * Streams for {@code nanos}, then until every write has completed and every receive is posted
     * again; returns the bytes that arrived in the ring.
     */
    long stream(long nanos) throws IOException {
        long posted = 0;
        long completed = 0;
        long reposted = 0;
        long start = System.nanoTime();
        long lastProgress = start;
        boolean posting = true;
        while (posting || completed < posted || reposted < posted) {
            long now = System.nanoTime();
            // Stop at a signaled write, whose completion covers the unsignaled ones before it.
            if (posting && now - start > nanos && posted % IsolationCost.SIGNAL_INTERVAL == 0) {
                posting = false;
            }
            while (posting && posted - completed < IsolationCost.IN_FLIGHT
                    && posted - reposted < IsolationCost.STREAM_RECEIVES) {
                long remote = target.ringAddress + (posted % IsolationCost.IN_FLIGHT) * IsolationCost.MESSAGE_BYTES;
                if (posted % IsolationCost.SIGNAL_INTERVAL == IsolationCost.SIGNAL_INTERVAL - 1) {
                    signaledRequest.setWr_id(posted);
                    signaledWriteTarget.setRemote_addr(remote);
                    signaledWrite.execute();
                } else {
                    writeTarget.setRemote_addr(remote);
                    write.execute();
                }
                posted++;
            }
            boolean progressed = false;
            int polled = writer.poll();
            for (int i = 0; i < polled; i++) {
                completed = writer.completion(i).getWr_id() + 1;
                progressed = true;
            }
            polled = server.poll();
            for (int i = 0; i < polled; i++) {
                IbvWC wc = server.completion(i);
                if (wc.getStatus() != VerbsQueuePair.WC_SUCCESS
                        || wc.getOpcode() != VerbsQueuePair.WC_RECV_RDMA_WITH_IMM) {
                    throw new IOException("the target's completion: " + IbvWC.IbvWcStatus.valueOf(wc.getStatus())
                            + ", opcode " + wc.getOpcode() + " (expected: a write with immediate received)");
                }
                target.receive.execute();
                reposted++;
                progressed = true;
            }
            if (progressed) {
                lastProgress = now;
            } else if (now - lastProgress > IsolationCost.STALL_NANOS) {
                throw new IOException("the stream stalled: " + posted + " writes posted, " + completed
                        + " completed, " + reposted + " received");
            }
        }
        return reposted * IsolationCost.MESSAGE_BYTES;
    }

    /** The target disconnects first; the writer's close answers it; then the target frees its side. */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        try {
            target.id.disconnect();
            writer.close();
            server.expect(RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED);
            // Every receive is posted again after each write, so all of them are flushed.
            server.drain(IsolationCost.STREAM_RECEIVES);
        } catch (IOException e) {
            failure = e;
        }
        try {
            target.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
