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

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Loads the project's {@code libdisni.so} and turns every way that can fail into a message that says
 * what to install or which JVM flag to set.
 *
 * <p>Why the file must be on {@code java.library.path}: DiSNI's {@code NativeDispatcher} calls
 * {@code System.loadLibrary("disni")} in its static initialiser, and the JDK resolves that name only
 * against the library path fixed at JVM start-up. Loading the file from a temporary location, as
 * Netty's own loader does, would satisfy this class but not DiSNI. The jar still carries the library
 * under {@link #BUNDLED_PATH}; when it is missing from the path this class extracts it and names the
 * directory to add.
 *
 * <p>Thread-safety: {@link #ensureLoaded()} may be called from any thread; the outcome is computed
 * once.
 */
public final class NativeLibrary {

    /** The name DiSNI loads: {@code System.loadLibrary("disni")}. */
    static final String NAME = "disni";
    /** Where the jar carries the library built for this platform. */
    static final String BUNDLED_PATH = "META-INF/native/linux-x86_64/" + System.mapLibraryName(NAME);
    /** The JVM flags DiSNI needs; the README and every launcher of this project set them. */
    public static final String REQUIRED_JVM_FLAGS =
            "--add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED";

    private static final Throwable UNAVAILABILITY_CAUSE = load();

    private NativeLibrary() {
    }

    /**
     * Ensures the native library is loaded and fit for use.
     *
     * @throws UnsatisfiedLinkError with the reason and the fix when it is not
     */
    public static void ensureLoaded() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (Error) new UnsatisfiedLinkError(UNAVAILABILITY_CAUSE.getMessage())
                    .initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /** Returns {@code true} if the native library is loaded and fit for use. */
    public static boolean isLoaded() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /** Returns why the native library cannot be used, or {@code null} if it can. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }

    private static Throwable load() {
        if (!isLinuxX8664()) {
            return new UnsupportedOperationException("netty-rdma supports only Linux on x86-64, not "
                    + System.getProperty("os.name") + '/' + System.getProperty("os.arch"));
        }
        String exportProblem = checkDirectBufferExport();
        if (exportProblem != null) {
            return new IllegalStateException(exportProblem);
        }
        String fileName = System.mapLibraryName(NAME);
        String libraryPath = System.getProperty("java.library.path", "");
        File found = findOnPath(fileName, libraryPath);
        if (found == null) {
            return new UnsatisfiedLinkError(fileName + " was not found on java.library.path ("
                    + libraryPath + "). " + extractionHint());
        }
        try {
            System.loadLibrary(NAME);
        } catch (UnsatisfiedLinkError e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("libibverbs") || message.contains("librdmacm")) {
                return new UnsatisfiedLinkError("cannot load " + found + ": " + message
                        + " (install rdma-core's user-space libraries, on Debian/Ubuntu: "
                        + "apt-get install libibverbs1 librdmacm1 ibverbs-providers)");
            }
            return new UnsatisfiedLinkError("cannot load " + found + ": " + message);
        }
        try {
            int version = RdmaNative.abiVersion();
            if (version != RdmaNative.ABI_VERSION) {
                return new UnsatisfiedLinkError(found + " is netty-rdma's native library version "
                        + version + " (expected: " + RdmaNative.ABI_VERSION + "): rebuild it or put the "
                        + "one from this jar on java.library.path. " + extractionHint());
            }
        } catch (UnsatisfiedLinkError e) {
            // DiSNI's own libdisni has DiSNI's entry points but none of this project's.
            return new UnsatisfiedLinkError(found + " is not netty-rdma's build of libdisni (it lacks "
                    + "the project's entry points). " + extractionHint());
        }
        return null;
    }

    private static boolean isLinuxX8664() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(java.util.Locale.ROOT);
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"));
    }

    /**
     * DiSNI takes buffer addresses through {@code sun.nio.ch.DirectBuffer}; without the export every
     * call that passes a buffer fails with an {@link IllegalAccessError} deep inside DiSNI.
     */
    private static String checkDirectBufferExport() {
        Module disni;
        try {
            disni = Class.forName("com.ibm.disni.util.MemoryUtils", false,
                    NativeLibrary.class.getClassLoader()).getModule();
        } catch (ClassNotFoundException e) {
            return "DiSNI (com.ibm.disni:disni:2.1) is not on the class path";
        }
        if (!Object.class.getModule().isExported("sun.nio.ch", disni)) {
            String target = disni.isNamed() ? disni.getName() : "ALL-UNNAMED";
            return "DiSNI needs the JVM flag --add-exports java.base/sun.nio.ch=" + target
                    + " (and on JDK 24+ --enable-native-access=" + target + ')';
        }
        return null;
    }

    private static File findOnPath(String fileName, String libraryPath) {
        for (String dir : libraryPath.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            File candidate = new File(dir, fileName);
            if (candidate.isFile()) {
                return candidate;
            }
        }
        return null;
    }

    /** Extracts the bundled library, if this jar has one, and says how to use it. */
    private static String extractionHint() {
        try (InputStream in = NativeLibrary.class.getClassLoader().getResourceAsStream(BUNDLED_PATH)) {
            if (in == null) {
                return "This class path carries no bundled copy (" + BUNDLED_PATH
                        + "): build the transport-rdma module and add its target/native to java.library.path.";
            }
            Path dir = Files.createTempDirectory("netty-rdma-native");
            Path file = dir.resolve(System.mapLibraryName(NAME));
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return "The copy bundled in the jar was extracted to " + dir
                    + ": start the JVM with -Djava.library.path=" + dir + " (DiSNI loads the library by name"
                    + " at class initialisation, so it cannot be added at run time).";
        } catch (IOException e) {
            return "Extracting the bundled " + BUNDLED_PATH + " failed (" + e
                    + "): copy it from the jar into a directory on java.library.path.";
        }
    }
}
