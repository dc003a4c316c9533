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

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** What a server lets its peers hold, per source address and in set-up, without a device. */
class AdmissionTest {

    private static final long CAP = 1000;
    private static final int MAX = 1000;

    @Test
    void anAddressIsAdmittedWhileAllItsConnectionsCanComeToHoldFit() throws Exception {
        Admission admission = new Admission();
        InetAddress a = InetAddress.getByName("10.0.0.1");
        Admission.Ticket first = admission.enter();
        assertEquals(Admission.Verdict.ADMITTED, first.admit(a, 400, MAX, CAP));
        first.hold(100); // slots only until the HELLO
        Admission.Ticket second = admission.enter();
        assertEquals(Admission.Verdict.ADMITTED, second.admit(a, 400, MAX, CAP));
        assertEquals(500, admission.held(a));
        Admission.Ticket third = admission.enter();
        assertEquals(Admission.Verdict.TOO_MUCH_MEMORY, third.admit(a, 600, MAX, CAP), "500 held and 600 more would pass the cap");
        assertEquals(500, admission.held(a), "a refused connection holds nothing");
        assertEquals(Admission.Verdict.ADMITTED, admission.enter().admit(InetAddress.getByName("10.0.0.2"), 600, MAX, CAP),
                "another address has its own share");
    }

    @Test
    void anAddressIsAdmittedWhileItsOpenConnectionsStayWithinTheirBound() throws Exception {
        Admission admission = new Admission();
        InetAddress a = InetAddress.getByName("10.0.0.1");
        Admission.Ticket first = admission.enter();
        Admission.Ticket second = admission.enter();
        assertEquals(Admission.Verdict.ADMITTED, first.admit(a, 10, 2, CAP));
        assertEquals(Admission.Verdict.ADMITTED, second.admit(a, 10, 2, CAP));
        assertEquals(2, admission.connections(a));
        Admission.Ticket third = admission.enter();
        assertEquals(Admission.Verdict.TOO_MANY_CONNECTIONS, third.admit(a, 0, 2, CAP),
                "a third connection passes the bound even if it holds nothing");
        third.release();
        assertEquals(2, admission.connections(a), "a refused connection was never counted");
        assertEquals(Admission.Verdict.ADMITTED, admission.enter().admit(InetAddress.getByName("10.0.0.2"), 10, 2, CAP),
                "another address has its own count");
        first.release();
        first.release();
        assertEquals(1, admission.connections(a), "a connection counts once, until its close");
        assertEquals(Admission.Verdict.ADMITTED, admission.enter().admit(a, 10, 2, CAP), "the closed one's room is free");
    }

    @Test
    void anAddressWhoseConnectionsHoldNothingIsStillCounted() throws Exception {
        Admission admission = new Admission();
        InetAddress a = InetAddress.getByName("10.0.0.1");
        Admission.Ticket ticket = admission.enter();
        ticket.admit(a, 0, MAX, CAP);
        assertEquals(1, admission.addresses());
        assertEquals(1, admission.connections(a));
        ticket.release();
        assertEquals(0, admission.addresses(), "an address with no connection is forgotten");
    }

    @Test
    void whatAConnectionHoldsFollowsItAndGoesAtItsClose() throws Exception {
        Admission admission = new Admission();
        InetAddress a = InetAddress.getByName("10.0.0.1");
        Admission.Ticket ticket = admission.enter();
        ticket.admit(a, 400, MAX, CAP);
        ticket.hold(100);
        assertEquals(100, admission.held(a));
        ticket.hold(400); // both HELLOs out: ring and send buffer registered
        assertEquals(400, admission.held(a));
        ticket.release();
        ticket.release();
        assertEquals(0, admission.held(a));
        assertEquals(0, admission.addresses(), "an address with no connection is forgotten");
    }

    @Test
    void aConnectionCountsAsSettingUpUntilItsHelloOrItsClose() {
        Admission admission = new Admission();
        Admission.Ticket helloed = admission.enter();
        Admission.Ticket closed = admission.enter();
        Admission.Ticket refused = admission.enter();
        assertEquals(3, admission.settingUp());
        helloed.setUpEnded();
        helloed.setUpEnded();
        assertEquals(2, admission.settingUp());
        closed.release();
        refused.release();
        assertEquals(0, admission.settingUp());
    }

    @Test
    void aFullBacklogClosesTheOldestConnectionThatWaitsForItsHello() {
        Admission admission = new Admission();
        List<String> evicted = new ArrayList<>();
        Admission.Ticket notYetAccepted = admission.enter();
        Admission.Ticket oldest = admission.enter();
        Admission.Ticket helloed = admission.enter();
        Admission.Ticket newest = admission.enter();
        oldest.evictable(() -> evicted.add("oldest"));
        helloed.evictable(() -> evicted.add("helloed"));
        newest.evictable(() -> evicted.add("newest"));
        helloed.setUpEnded();
        assertEquals(3, admission.settingUp());

        assertTrue(admission.evictOldest());
        assertEquals(List.of("oldest"), evicted, "the oldest that can be asked; one still being accepted cannot");
        assertEquals(2, admission.settingUp(), "it stops counting at once");
        oldest.release();
        assertEquals(2, admission.settingUp(), "and its close does not count it out twice");

        assertTrue(admission.evictOldest());
        assertEquals(List.of("oldest", "newest"), evicted, "one that said HELLO is never asked");
        assertFalse(admission.evictOldest(), "only a connection still being accepted is left");
        assertEquals(1, admission.settingUp());
        notYetAccepted.release();
        assertEquals(0, admission.settingUp());
    }
}
