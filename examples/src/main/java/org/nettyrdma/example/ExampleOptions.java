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
package org.nettyrdma.example;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The command line of an example: {@code --name value} or {@code --name=value} pairs, read by name with
 * a default. Every example takes {@code --transport rdma|rdma-busypoll|nio|epoll}, {@code --host}
 * and {@code --port}; the host defaults to {@code $RDMA_TEST_ADDRESS} (set in the rxe VM), else
 * {@code 127.0.0.1}, which serves TCP only: RDMA needs the address of an RDMA interface.
 *
 * <p>Made by {@link #parse(String, String[])}, a mistake prints the message and the usage and exits with
 * status 2, as a command-line tool does; made by {@link #of(String...)}, it throws
 * {@link IllegalArgumentException} instead. Not thread-safe.
 */
public final class ExampleOptions {

    private final String usage;
    private final Map<String, String> values;
    private final Set<String> read = new HashSet<>();

    private ExampleOptions(String usage, Map<String, String> values) {
        this.usage = usage;
        this.values = values;
    }

    /**
     * Parses {@code args}; a mistake here or in a later call prints it with {@code usage} and exits with
     * status 2; {@code --help} prints the usage and exits with status 0.
     */
    public static ExampleOptions parse(String usage, String[] args) {
        for (String arg : args) {
            if ("--help".equals(arg) || "-h".equals(arg)) {
                System.out.println(usage);
                System.exit(0);
            }
        }
        try {
            return new ExampleOptions(usage, split(args));
        } catch (IllegalArgumentException e) {
            throw new ExampleOptions(usage, Map.of()).fail(e.getMessage());
        }
    }

    /**
     * Parses {@code args}.
     *
     * @throws IllegalArgumentException for an argument that is not an option or an option without a value,
     *         and, from the other methods, for a value that does not fit
     */
    public static ExampleOptions of(String... args) {
        return new ExampleOptions(null, split(args));
    }

    private static Map<String, String> split(String... args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new IllegalArgumentException("unexpected argument: " + arg + " (expected: --name value)");
            }
            String name;
            String value;
            int equals = arg.indexOf('=');
            if (equals >= 0) {
                name = arg.substring(2, equals);
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.length) {
                name = arg.substring(2);
                value = args[++i];
            } else {
                throw new IllegalArgumentException(arg + " needs a value");
            }
            if (values.put(name, value) != null) {
                throw new IllegalArgumentException("--" + name + " given twice");
            }
        }
        return values;
    }

    /** Returns {@code --transport}, by default {@link Transport#RDMA}. */
    public Transport transport() {
        String name = string("transport", "rdma");
        try {
            return Transport.of(name);
        } catch (IllegalArgumentException e) {
            throw fail("--" + e.getMessage());
        }
    }

    /**
     * Returns {@code --transport} as {@link #transport()} does, refusing a TCP transport with a message that
     * says {@code why}: for an example of what only RDMA has.
     */
    public Transport rdmaTransport(String why) {
        Transport transport = transport();
        if (!transport.isRdma()) {
            throw fail("--transport " + transport.displayName() + ": " + why
                    + " (expected: rdma, rdma-nopoll or rdma-busypoll)");
        }
        return transport;
    }

    /**
     * Returns {@code --transports}, comma-separated transport names, by default {@code defaultNames}: what
     * a benchmark compares, in the order given.
     */
    public List<Transport> transports(String defaultNames) {
        List<Transport> transports = new ArrayList<>();
        for (String name : string("transports", defaultNames).split(",")) {
            try {
                transports.add(Transport.of(name.trim()));
            } catch (IllegalArgumentException e) {
                throw fail("--transports: " + e.getMessage().substring("transport: ".length()));
            }
        }
        return transports;
    }

    /** Returns {@code --host}, by default {@code $RDMA_TEST_ADDRESS} or else {@code 127.0.0.1}. */
    public String host() {
        String fromEnvironment = System.getenv("RDMA_TEST_ADDRESS");
        return string("host", fromEnvironment != null && !fromEnvironment.isEmpty() ? fromEnvironment : "127.0.0.1");
    }

    /** Returns {@code --port}, 0 ..= 65535, by default {@code defaultPort}. */
    public int port(int defaultPort) {
        int port = integer("port", defaultPort);
        if (port > 65535) {
            throw fail("--port: " + port + " (expected: 0-65535)");
        }
        return port;
    }

    /** Returns the socket address of {@link #host()} and {@link #port(int)}. */
    public InetSocketAddress address(int defaultPort) {
        InetSocketAddress address = new InetSocketAddress(host(), port(defaultPort));
        if (address.isUnresolved()) {
            throw fail("--host: " + address.getHostString() + " cannot be resolved");
        }
        return address;
    }

    /** Returns option {@code name}, or {@code defaultValue} when it is not given. */
    public String string(String name, String defaultValue) {
        read.add(name);
        return values.getOrDefault(name, defaultValue);
    }

    /** Returns option {@code name} as an integer {@code >= 0}, with an optional {@code k} (1024) or {@code m} suffix. */
    public int integer(String name, int defaultValue) {
        String value = string(name, null);
        return value == null ? defaultValue : parseInteger(name, value);
    }

    /** Returns option {@code name} as a comma-separated list of integers, as {@link #integer} reads them. */
    public int[] integers(String name, int... defaultValues) {
        String value = string(name, null);
        if (value == null) {
            return defaultValues.clone();
        }
        String[] items = value.split(",", -1);
        int[] result = new int[items.length];
        for (int i = 0; i < items.length; i++) {
            result[i] = parseInteger(name, items[i].trim());
        }
        return result;
    }

    /** Returns option {@code name} as a number of seconds {@code > 0}, such as {@code 2} or {@code 0.5}. */
    public double seconds(String name, double defaultValue) {
        String value = string(name, null);
        if (value == null) {
            return defaultValue;
        }
        try {
            double seconds = Double.parseDouble(value);
            if (seconds > 0 && seconds < 86_400) {
                return seconds;
            }
        } catch (NumberFormatException ignored) {
            // Reported below, as any other value out of range.
        }
        throw fail("--" + name + ": " + value + " (expected: seconds > 0)");
    }

    /** Fails for every option given that no method has read: a misspelt option must not pass unnoticed. */
    public void checkAllRead() {
        for (String name : values.keySet()) {
            if (!read.contains(name)) {
                throw fail("unknown option: --" + name);
            }
        }
    }

    private int parseInteger(String name, String value) {
        String digits = value.toLowerCase(Locale.ROOT);
        int unit = 1;
        if (digits.endsWith("k")) {
            unit = 1 << 10;
        } else if (digits.endsWith("m")) {
            unit = 1 << 20;
        }
        if (unit != 1) {
            digits = digits.substring(0, digits.length() - 1);
        }
        try {
            int number = Integer.parseInt(digits);
            if (number >= 0 && number <= Integer.MAX_VALUE / unit) {
                return number * unit;
            }
        } catch (NumberFormatException ignored) {
            // Reported below, as any other value out of range.
        }
        throw fail("--" + name + ": " + value + " (expected: an integer >= 0, optionally with k or m)");
    }

    /** Prints the mistake and the usage and exits, or, without a usage, returns the exception to throw. */
    private IllegalArgumentException fail(String message) {
        if (usage != null) {
            System.err.println(message);
            System.err.println(usage);
            System.exit(2);
        }
        return new IllegalArgumentException(message);
    }
}
