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
package org.nettyrdma.testsuite.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.example.atomics.AtomicsClient;
import org.nettyrdma.example.atomics.AtomicsServer;
import org.nettyrdma.example.atomics.SharedWords;
import org.nettyrdma.example.kv.KvClient;
import org.nettyrdma.example.kv.KvServer;
import org.nettyrdma.example.kv.SlotLayout;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * The one-sided examples on rxe. The key-value store: GETs are RDMA Reads the server's handler never
 * sees, and readers racing a writer never return a torn value, thanks to the slot's version word. The
 * atomics: fetch-and-adds of several clients and read-modify-writes under their compare-and-swap
 * lock lose no update.
 */
class OneSidedExamplesTest {

    private static final long TIMEOUT_SECONDS = 30;
    private static final int CLIENTS = 4;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private KvClient kvClient(KvServer server) throws Exception {
        return await(KvClient.connect(rdma.group(), server.localAddress()));
    }

    private List<AtomicsClient> atomicsClients(AtomicsServer server) throws Exception {
        List<AtomicsClient> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(await(AtomicsClient.connect(rdma.group(), server.localAddress())));
        }
        return clients;
    }

    private static void closeAll(List<?> clients) throws Exception {
        for (Object client : clients) {
            await(client instanceof KvClient kv ? kv.close() : ((AtomicsClient) client).close());
        }
    }

    @Test
    void aGetReturnsWhatAPutWroteAndNeverReachesTheServersHandler() throws Exception {
        KvServer server = KvServer.start(rdma.group(), RdmaTestEnvironment.anyPort(), new SlotLayout(16, 1024));
        List<KvClient> clients = new ArrayList<>();
        try {
            KvClient client = kvClient(server);
            clients.add(client);
            assertEquals(new SlotLayout(16, 1024), client.layout(), "the layout came with the hello");
            for (int slot = 0; slot < 5; slot++) {
                await(client.put(slot, Values.of(slot * 40)));
            }
            assertEquals(5, server.requestsHandled(), "each PUT went through the server's handler");

            for (int round = 0; round < 20; round++) {
                for (int slot = 0; slot < 5; slot++) {
                    assertArrayEquals(Values.of(slot * 40), await(client.get(slot)), "slot " + slot);
                }
                assertArrayEquals(new byte[0], await(client.get(15)), "a slot never written is empty");
            }
            byte[] largest = new byte[1024];
            Arrays.fill(largest, (byte) 0x5A);
            await(client.put(15, largest));
            assertArrayEquals(largest, await(client.get(15)));
            assertEquals(6, server.requestsHandled(), "120 GETs later: the PUTs only");
            assertEquals(0, client.retries(), "no PUT raced these GETs");

            ExecutionException refused = assertThrows(ExecutionException.class, () -> await(client.get(16)));
            assertInstanceOf(IllegalArgumentException.class, refused.getCause());
            refused = assertThrows(ExecutionException.class, () -> await(client.put(0, new byte[1025])));
            assertInstanceOf(IllegalArgumentException.class, refused.getCause());
            assertEquals(6, server.requestsHandled(), "refused before anything was sent");

            KvClient second = kvClient(server);
            clients.add(second);
            assertArrayEquals(Values.of(80), await(second.get(2)), "another connection, its own exposure, "
                    + "the same table");
        } finally {
            closeAll(clients);
            server.close();
        }
    }

    @Test
    void readersRacingAWriterNeverReturnATornValue() throws Exception {
        KvServer server = KvServer.start(rdma.group(), RdmaTestEnvironment.anyPort(), new SlotLayout(4, 1024));
        List<KvClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        try {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(kvClient(server));
            }
            KvClient writer = clients.get(0);
            await(writer.put(0, Values.of(0)));
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicLong puts = new AtomicLong(1);
            Future<?> written = threads.submit(() -> {
                try {
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                    for (int n = 1; n < 20_000 && System.nanoTime() < end; n++) {
                        await(writer.put(0, Values.of(n)));
                        puts.incrementAndGet();
                    }
                } finally {
                    writing.set(false);
                }
                return null;
            });
            List<Future<Long>> readers = new ArrayList<>();
            for (KvClient reader : clients.subList(1, CLIENTS)) {
                readers.add(threads.submit(() -> {
                    long gets = 0;
                    do {
                        byte[] value = await(reader.get(0));
                        assertTrue(Values.whole(value), () -> "a torn value: " + Values.describe(value));
                        gets++;
                    } while (writing.get());
                    return gets;
                }));
            }
            written.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long gets = 0;
            for (Future<Long> reader : readers) {
                gets += reader.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            long retries = 0;
            for (KvClient client : clients) {
                retries += client.retries();
            }
            System.out.printf("kv: %d PUTs to one slot raced %d GETs by %d readers: none torn, %d GETs read the "
                    + "slot again after finding its version changed%n", puts.get(), gets, CLIENTS - 1, retries);
            assertTrue(gets >= CLIENTS - 1, "every reader read");
            assertEquals(puts.get(), server.requestsHandled(), "the handler saw the PUTs and none of the GETs");
            assertTrue(Values.whole(server.table().value(0)));
        } finally {
            threads.shutdownNow();
            assertTrue(threads.awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            closeAll(clients);
            server.close();
        }
    }

    @Test
    void fourClientsFetchAndAddEightHundredTimesAndTheCounterIsEightHundred() throws Exception {
        AtomicsServer server = AtomicsServer.start(rdma.group(), RdmaTestEnvironment.anyPort());
        List<AtomicsClient> clients = new ArrayList<>();
        try {
            clients.addAll(atomicsClients(server));
            List<CompletableFuture<Long>> increments = new ArrayList<>();
            for (AtomicsClient client : clients) {
                for (int i = 0; i < 200; i++) {
                    increments.add(client.increment());
                }
            }
            Set<Long> before = new HashSet<>();
            for (CompletableFuture<Long> increment : increments) {
                before.add(await(increment));
            }
            assertEquals(800, server.word(SharedWords.COUNTER));
            assertEquals(800L, await(clients.get(0).read(SharedWords.COUNTER)), "and so the clients read it");
            assertEquals(800, before.size(), "each fetch-and-add saw a value of its own, 0 to 799");
            for (long value = 0; value < 800; value++) {
                assertTrue(before.contains(value), "value " + value);
            }
        } finally {
            closeAll(clients);
            server.close();
        }
    }

    @Test
    void fourClientsIncrementAPlainWordFiftyTimesEachUnderTheLockAndItIsTwoHundred() throws Exception {
        AtomicsServer server = AtomicsServer.start(rdma.group(), RdmaTestEnvironment.anyPort());
        List<AtomicsClient> clients = new ArrayList<>();
        try {
            clients.addAll(atomicsClients(server));
            Set<Long> ids = new HashSet<>();
            List<CompletableFuture<Long>> runs = new ArrayList<>();
            for (AtomicsClient client : clients) {
                assertNotEquals(0L, client.id(), "0 is the free lock");
                ids.add(client.id());
                runs.add(client.incrementGuarded(50));
            }
            assertEquals(CLIENTS, ids.size(), "every client locks with an id of its own");
            long retries = 0;
            for (int i = 0; i < CLIENTS; i++) {
                await(runs.get(i));
                retries += clients.get(i).lockRetries();
            }
            System.out.printf("atomics: %d clients x 50 read-and-write-backs under the lock: the word is %d, the "
                    + "lock was found taken %d times%n", CLIENTS, server.word(SharedWords.GUARDED), retries);
            assertEquals(200, server.word(SharedWords.GUARDED));
            assertEquals(0, server.word(SharedWords.LOCK), "the lock is free again");
            assertEquals(0, server.word(SharedWords.COUNTER), "the counter is another word");
            ExecutionException notHeld = assertThrows(ExecutionException.class, () -> await(clients.get(0).unlock()));
            assertInstanceOf(IllegalStateException.class, notHeld.getCause());
        } finally {
            closeAll(clients);
            server.close();
        }
    }

    /**
     * Values a torn read would give away: value {@code n} is {@link #length} bytes, each {@code (byte) n};
     * no two consecutive values have the same length or byte, so bytes of two values, or the length of
     * one and the bytes of another, never pass {@link #whole}.
     */
    private static final class Values {

        static byte[] of(int n) {
            byte[] value = new byte[length((byte) n)];
            Arrays.fill(value, (byte) n);
            return value;
        }

        /** 1 to 1024 bytes, a different length for each of the 256 bytes (131 is odd: a bijection mod 1024). */
        static int length(byte b) {
            return 1 + ((b & 0xff) * 131) % 1024;
        }

        static boolean whole(byte[] value) {
            if (value.length == 0 || value.length != length(value[0])) {
                return false;
            }
            for (byte b : value) {
                if (b != value[0]) {
                    return false;
                }
            }
            return true;
        }

        static String describe(byte[] value) {
            Set<Byte> bytes = new HashSet<>();
            for (byte b : value) {
                bytes.add(b);
            }
            return value.length + " bytes of " + bytes.size() + " distinct values, first " + (value.length == 0
                    ? "none" : value[0] + " (whose length is " + length(value[0]) + ")");
        }
    }
}
