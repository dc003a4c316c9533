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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transport's module descriptor, as a user's module on the module path meets it: a module that
 * requires {@code org.nettyrdma.transport.rdma} compiles and runs against the public package, and
 * does not compile against the {@code internal} one. The module is this build's
 * {@code target/classes}; its dependencies are the Netty, DiSNI and SLF4J jars of the test class
 * path, put on the module path as a user's build would.
 */
class ModuleDescriptorTest {

    private static final String MODULE = "org.nettyrdma.transport.rdma";
    /** The module of Netty's epoll library, which an application adds as it would for Netty's epoll. */
    private static final String EPOLL_LIBRARY = "io.netty.transport.epoll.linux.x86_64";

    @TempDir
    Path work;

    @Test
    void aModuleCompilesAndRunsAgainstThePublicPackage() throws Exception {
        Path source = userModule("""
                package user;

                import org.nettyrdma.channel.rdma.Rdma;
                import org.nettyrdma.channel.rdma.RdmaIoHandler;
                import org.nettyrdma.channel.rdma.RdmaSocketChannel;

                public final class Main {
                    public static void main(String[] args) {
                        System.out.println("handler " + RdmaIoHandler.class.getModule().getName()
                                + ", channel " + RdmaSocketChannel.class.getSimpleName()
                                + ", available " + Rdma.isAvailable() + ", cause " + Rdma.unavailabilityCause());
                    }
                }
                """);
        Path classes = work.resolve("classes");
        String errors = compile(source, classes);
        assertEquals("", errors, "javac on the module path");

        Process run = new ProcessBuilder(javaHome("java"), "--module-path", classes + File.pathSeparator
                + modulePath(), "--add-modules", EPOLL_LIBRARY, "-m", "user/user.Main").redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the user module did not end: " + output);
        System.out.println("the user module printed: " + output.strip());
        assertEquals(0, run.exitValue(), () -> "the user module failed: " + output);
        assertTrue(output.contains("handler " + MODULE + ", channel RdmaSocketChannel, available "), output);
        // On the module path as on the class path, the transport finds Netty's epoll library.
        assertFalse(output.contains("epoll, which is unavailable"), output);
    }

    @Test
    void aModuleCannotCompileAgainstTheInternalPackage() throws Exception {
        Path source = userModule("""
                package user;

                import org.nettyrdma.channel.rdma.internal.RdmaNative;

                public final class Main {
                    public static void main(String[] args) {
                        System.out.println(RdmaNative.class);
                    }
                }
                """);
        String errors = compile(source, work.resolve("classes"));
        assertFalse(errors.isEmpty(), "javac accepted an import of the internal package");
        assertTrue(errors.contains("package org.nettyrdma.channel.rdma.internal is not visible")
                && errors.contains("does not export it"), errors);
    }

    /** Writes a module {@code user} that requires the transport, with {@code main} as user.Main. */
    private Path userModule(String main) throws IOException {
        Path source = work.resolve("src");
        Files.createDirectories(source.resolve("user"));
        Files.writeString(source.resolve("module-info.java"), "module user { requires " + MODULE + "; }\n");
        Files.writeString(source.resolve("user/Main.java"), main);
        return source;
    }

    /**
     * Compiles the module in {@code source} into {@code classes} with this JDK's {@code javac}; returns
     * its errors, empty if it succeeded.
     */
    private static String compile(Path source, Path classes) throws Exception {
        List<String> command = new ArrayList<>(List.of(javaHome("javac"), "-d", classes.toString(),
                "--module-path", modulePath(), "-Xlint:-requires-automatic"));
        try (Stream<Path> files = Files.walk(source)) {
            files.filter(file -> file.toString().endsWith(".java")).forEach(file -> command.add(file.toString()));
        }
        Process javac = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(javac.waitFor(120, TimeUnit.SECONDS), "javac did not end: " + output);
        return javac.exitValue() == 0 ? "" : output;
    }

    /** The transport's classes and the jars it requires, from this test's class path. */
    private static String modulePath() throws URISyntaxException {
        Path transport = Path.of(Rdma.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Stream<String> jars = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> {
                    String name = Path.of(entry).getFileName().toString();
                    return name.endsWith(".jar") && (name.startsWith("netty-") || name.startsWith("disni-")
                            || name.startsWith("slf4j-api-"));
                });
        return Stream.concat(Stream.of(transport.toString()), jars).collect(Collectors.joining(File.pathSeparator));
    }

    private static String javaHome(String tool) {
        return Path.of(System.getProperty("java.home"), "bin", tool).toString();
    }
}
