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

import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.impl.NatObject;

/** What the raw-verbs programs of this package do around DiSNI's calls: native handles and return codes. */
final class Verbs {

    private Verbs() {
    }

    /** Returns the native handle of a DiSNI verbs object, as the transport's own verbs take it. */
    static long handle(Object disniObject) {
        return ((NatObject) disniObject).getObjId();
    }

    /** Throws an {@link IOException} naming {@code verb} when its {@code result} is not 0. */
    static void check(int result, String verb) throws IOException {
        if (result != 0) {
            throw new IOException(verb + " failed: " + result);
        }
    }

    /** Deallocates {@code pd}; DiSNI's deallocPd declares Exception, the verbs' failures here are IOExceptions. */
    static void deallocate(IbvPd pd) throws IOException {
        int result;
        try {
            result = pd.deallocPd();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("ibv_dealloc_pd failed", e);
        }
        check(result, "ibv_dealloc_pd");
    }
}
