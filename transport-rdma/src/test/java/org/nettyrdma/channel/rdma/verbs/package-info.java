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
 * White-box device tests of the native layer on raw DiSNI verbs (completion channels, CM events,
 * memory windows, remote access errors) and the raw peers the transport's tests impersonate a
 * broken or silent peer with; they run in the rxe VM ({@code scripts/device-tests}).
 */
package org.nettyrdma.channel.rdma.verbs;
