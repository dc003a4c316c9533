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
package org.nettyrdma.example.kv;

import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.MessageToMessageCodec;
import org.nettyrdma.channel.rdma.RemoteRegion;

/**
 * The key-value store's messages as frames: a 4-byte length, then a type byte and the message's fields,
 * big-endian.
 *
 * <pre>
 * HELLO   1 | descriptor (RemoteRegion, 24 bytes) | slots (4) | max value length (4)
 * PUT     2 | slot (4) | value (the rest of the frame)
 * RESULT  3 | status (1: the ordinal of KvMessage.Status)
 * </pre>
 *
 * {@link #addTo} puts the framing and this codec in a pipeline; the codec alone turns one frame into
 * one {@link KvMessage} and back.
 */
public final class KvCodec extends MessageToMessageCodec<ByteBuf, KvMessage> {

    static final byte HELLO = 1;
    static final byte PUT = 2;
    static final byte RESULT = 3;
    /** The largest frame: a PUT of the largest value a layout allows. */
    static final int MAX_FRAME = 1 + Integer.BYTES + SlotLayout.MAX_VALUE_LENGTH;

    /** Adds the length framing and a codec to the end of {@code pipeline}. */
    public static void addTo(ChannelPipeline pipeline) {
        pipeline.addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, Integer.BYTES, 0, Integer.BYTES),
                new LengthFieldPrepender(Integer.BYTES),
                new KvCodec());
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, KvMessage msg, List<Object> out) {
        ByteBuf frame;
        if (msg instanceof KvMessage.Hello hello) {
            frame = ctx.alloc().buffer(1 + RemoteRegion.ENCODED_LENGTH + 2 * Integer.BYTES).writeByte(HELLO);
            hello.table().writeTo(frame).writeInt(hello.layout().slots()).writeInt(hello.layout().maxValueLength());
        } else if (msg instanceof KvMessage.Put put) {
            frame = ctx.alloc().buffer(1 + Integer.BYTES + put.value().length)
                    .writeByte(PUT).writeInt(put.slot()).writeBytes(put.value());
        } else {
            frame = ctx.alloc().buffer(2).writeByte(RESULT).writeByte(((KvMessage.Result) msg).status().ordinal());
        }
        out.add(frame);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        out.add(decode(frame));
    }

    /**
     * Returns the message of {@code frame}, without its length.
     *
     * @throws CorruptedFrameException for a frame that is no message of this codec
     */
    static KvMessage decode(ByteBuf frame) {
        try {
            byte type = frame.readByte();
            KvMessage message;
            if (type == HELLO) {
                RemoteRegion table = RemoteRegion.readFrom(frame);
                message = new KvMessage.Hello(table, new SlotLayout(frame.readInt(), frame.readInt()));
            } else if (type == PUT) {
                message = new KvMessage.Put(frame.readInt(), ByteBufUtil.getBytes(frame));
                frame.skipBytes(frame.readableBytes());
            } else if (type == RESULT) {
                message = new KvMessage.Result(KvMessage.Status.values()[frame.readUnsignedByte()]);
            } else {
                throw new CorruptedFrameException("message type " + type + " (expected: 1 to 3)");
            }
            if (frame.isReadable()) {
                throw new CorruptedFrameException(frame.readableBytes() + " bytes after a message of type " + type);
            }
            return message;
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new CorruptedFrameException("not a message of the key-value store: " + e.getMessage(), e);
        }
    }
}
