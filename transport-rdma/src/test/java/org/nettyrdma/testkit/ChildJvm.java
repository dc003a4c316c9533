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
package org.nettyrdma.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM running a main class of the device tests, for tests whose peer must be another process: a
 * peer that does not share the test's protection domain, or one that is killed. It runs the test JVM's
 * own {@code java} binary with the test JVM's flags (those that {@code scripts/device-tests} passed)
 * and class path, in the same directory and environment. Its standard output and error, merged, are
 * copied to the test's output line by line (prefixed with its pid) and kept, so a test can wait for a
 * line the child prints.
 *
 * <p>{@link #close()} kills a child still running and waits for it to end, so that the verbs objects
 * it held are gone before the test counts what is left on the device.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final String name;
    private final List<String> lines = new ArrayList<>();
    /** Set once the child's output ended: it closed it, or it ended. */
    private boolean outputEnded;

    private ChildJvm(Process process, String name) {
        this.process = process;
        this.name = name;
        Thread reader = new Thread(this::copyOutput, name + " output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code mainClass} with {@code arguments} in a new JVM. */
    public static ChildJvm start(Class<?> mainClass, String... arguments) throws IOException {
        return start(List.of(), mainClass, arguments);
    }

    /** Starts {@code mainClass} with {@code arguments} in a new JVM that gets {@code jvmFlags} too. */
    public static ChildJvm start(List<String> jvmFlags, Class<?> mainClass, String... arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // A debugger's agent listens on a port: a second JVM with the same flag could not start.
            if (!flag.startsWith("-agentlib:jdwp")) {
                command.add(flag);
            }
        }
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new ChildJvm(process, mainClass.getSimpleName() + '[' + process.pid() + ']');
    }

    private void copyOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                System.out.println(name + ": " + line);
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // The stream breaks when the child is killed: its output ended all the same.
        } finally {
            synchronized (lines) {
                outputEnded = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * Returns the first line the child printed that starts with {@code prefix}, without the prefix;
     * fails if the child ends without printing it or the timeout passes.
     */
    public String awaitLine(String prefix, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lines) {
            for (;;) {
                for (String line : lines) {
                    if (line.startsWith(prefix)) {
                        return line.substring(prefix.length());
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || outputEnded) {
                    throw new AssertionError(name + " printed no line starting with '" + prefix + "' "
                            + (outputEnded ? "before its output ended" : "within " + timeout + ' ' + unit)
                            + "; its output:\n" + output());
                }
                lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
            }
        }
    }

    /** Waits for the child to end and returns its exit status; fails if it does not end in time. */
    public int awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
        if (!process.waitFor(timeout, unit)) {
            throw new AssertionError(name + " still running after " + timeout + ' ' + unit + "; its output:\n"
                    + output());
        }
        return process.exitValue();
    }

    /** Kills the child at once (SIGKILL), as a crash would end it, and waits for it to end. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " did not end within 30 s of SIGKILL");
        }
    }

    /** Returns the child's process id, as the kernel's tools ({@code rdma resource show}) name it. */
    public long pid() {
        return process.pid();
    }

    /**
     * Stops the child (SIGSTOP), as a process the scheduler does not run: what the kernel does for it
     * goes on (a TCP handshake into its listen queue, RDMA CM's requests), what it does itself waits.
     */
    public void suspend() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a {@linkplain #suspend() stopped} child run again (SIGCONT). */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + name + ' ' + process.pid() + " failed");
        }
    }

    /** Returns {@code true} while the child runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Returns what the child printed so far. */
    public String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** Kills the child if it is still running and waits for it to end. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
