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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.nettyrdma.example.Transport;

/**
 * A {@link ScaleServer} in a child JVM, started with this JVM's flags and class path, and the benchmark's
 * end of its line protocol. Its standard error goes to this process's; its standard output is read by a
 * daemon thread. Used by one thread.
 */
final class ScaleServerProcess implements AutoCloseable {

    /** A server that answers nothing in this long is stuck: under TCG a JVM starts in about 10 s. */
    private static final long ANSWER_SECONDS = 120;

    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final int echoPort;
    private final int sinkPort;
    private final long pid;

    private ScaleServerProcess(Process process) throws IOException {
        this.process = process;
        commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        Thread reader = new Thread(this::readLines, "scale-server output");
        reader.setDaemon(true);
        reader.start();
        Map<String, String> hello = fields(await("scale-server"));
        echoPort = Integer.parseInt(hello.get("echo"));
        sinkPort = Integer.parseInt(hello.get("sink"));
        pid = Long.parseLong(hello.get("pid"));
    }

    /** Starts a server over {@code transport} on {@code host} and waits until it listens. */
    static ScaleServerProcess start(Transport transport, String host) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ScaleServer.class.getName());
        command.add(transport.displayName());
        command.add(host);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            return new ScaleServerProcess(process);
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    int echoPort() {
        return echoPort;
    }

    int sinkPort() {
        return sinkPort;
    }

    long pid() {
        return pid;
    }

    /** Asks for the server's memory: the fields of its {@code scale-memory} line. */
    Map<String, String> memory() throws IOException {
        return fields(ask("memory", "scale-memory"));
    }

    /** Asks for the bytes each open sink connection read so far, by connection id. */
    Map<String, Long> sinkBytes() throws IOException {
        Map<String, Long> bytes = new HashMap<>();
        for (String field : ask("sinks", "scale-sinks").split(" ")) {
            int colon = field.lastIndexOf(':');
            if (colon > 0) {
                bytes.put(field.substring(0, colon), Long.parseLong(field.substring(colon + 1)));
            }
        }
        return bytes;
    }

    private String ask(String command, String answer) throws IOException {
        commands.write(command + '\n');
        commands.flush();
        return await(answer);
    }

    private String await(String prefix) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_SECONDS);
        try {
            for (;;) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IOException("the server gave no '" + prefix + "' line in " + ANSWER_SECONDS + " s"
                            + (process.isAlive() ? "" : " (it exited with status " + process.exitValue() + ')'));
                }
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
                if (line.startsWith("scale-error") || line.startsWith("scale-end")) {
                    throw new IOException("the server: " + line);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private void readLines() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.US_ASCII))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        } catch (IOException e) {
            // The pipe breaks when the server dies: the end below says so to whoever waits.
        }
        lines.add("scale-end the server's output ended");
    }

    /** Splits {@code name=value} fields separated by spaces. */
    static Map<String, String> fields(String line) {
        Map<String, String> fields = new HashMap<>();
        for (String field : line.split(" ")) {
            int equals = field.indexOf('=');
            if (equals > 0) {
                fields.put(field.substring(0, equals), field.substring(equals + 1));
            }
        }
        return fields;
    }

    /** Ends the server: its input closes, which it takes as the end; killed if it is still there after 20 s. */
    @Override
    public void close() throws InterruptedException {
        try {
            commands.close();
        } catch (IOException e) {
            // Already gone: nothing to tell it.
        }
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }
}
