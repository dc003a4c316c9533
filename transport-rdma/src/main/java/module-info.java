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

/**
 * The RDMA transport for Netty. Only {@code org.nettyrdma.channel.rdma} is exported: the channels,
 * the I/O handler, the options, the allocator and the metrics. The packages beneath it, one per
 * layer ({@code connection}, {@code protocol}, {@code loop}, {@code memory}, and {@code internal}, the
 * native binding), are the transport's own; on the module path no other module can compile against
 * them or reach them by reflection. On the class path a module descriptor is ignored, so there they
 * are only marked internal by their place beneath the public package.
 *
 * <p>DiSNI's jar carries no module descriptor and no {@code Automatic-Module-Name}: on the module
 * path it is an automatic module named after its file, {@code disni} for {@code disni-2.1.jar}. A
 * build that renames the jar (a shaded or repackaged DiSNI) must keep that name, or this module
 * will not resolve. DiSNI logs through SLF4J without saying so, as automatic modules cannot; this
 * module requires {@code org.slf4j} so that it is resolved for DiSNI.
 *
 * <p>As with Netty's own epoll transport, the module that carries Netty's epoll library is resolved
 * only if the application names it: {@code requires io.netty.transport.epoll.linux.x86_64} in its
 * descriptor, or {@code --add-modules io.netty.transport.epoll.linux.x86_64}; without it
 * {@link org.nettyrdma.channel.rdma.Rdma#unavailabilityCause()} says that epoll is unavailable.
 */
module org.nettyrdma.transport.rdma {
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires transitive io.netty.transport;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires disni;
    requires org.slf4j;

    exports org.nettyrdma.channel.rdma;
}
