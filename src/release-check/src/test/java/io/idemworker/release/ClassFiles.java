package io.idemworker.release;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;

/**
 * Reads just enough of a class file (JVMS chapter 4: the constant pool, then the methods table) to
 * tell whether the class declares a method the {@code java} launcher would start.
 */
final class ClassFiles {
  private static final int ACC_PRIVATE = 0x0002;
  private static final int ACC_STATIC = 0x0008;

  private ClassFiles() {}

  /**
   * A {@code static void main(String[])}, or a non-private instance {@code main} taking no argument
   * or a {@code String[]} (the launcher starts those too since JDK 25).
   */
  static boolean declaresMain(byte[] classFile) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    in.readUnsignedShort(); // minor
    in.readUnsignedShort(); // major
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = in.readUTF();
        case 3, 4 -> in.skipNBytes(4);
        case 5, 6 -> {
          in.skipNBytes(8);
          i++; // a long or a double takes two entries
        }
        case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
        case 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
        case 15 -> in.skipNBytes(3);
        default -> throw new IOException("constant pool tag " + tag);
      }
    }
    in.skipNBytes(6); // access flags, this class, super class
    in.skipNBytes(2L * in.readUnsignedShort()); // interfaces
    skipMembers(in); // fields
    int methods = in.readUnsignedShort();
    for (int m = 0; m < methods; m++) {
      int access = in.readUnsignedShort();
      String name = utf8[in.readUnsignedShort()];
      String descriptor = utf8[in.readUnsignedShort()];
      skipAttributes(in);
      if (!"main".equals(name)) {
        continue;
      }
      boolean takesArgs = descriptor.equals("([Ljava/lang/String;)V");
      if ((access & ACC_STATIC) != 0 && takesArgs) {
        return true;
      }
      if ((access & (ACC_STATIC | ACC_PRIVATE)) == 0 && (takesArgs || descriptor.equals("()V"))) {
        return true;
      }
    }
    return false;
  }

  private static void skipMembers(DataInputStream in) throws IOException {
    int members = in.readUnsignedShort();
    for (int i = 0; i < members; i++) {
      in.skipNBytes(6); // access flags, name, descriptor
      skipAttributes(in);
    }
  }

  private static void skipAttributes(DataInputStream in) throws IOException {
    int attributes = in.readUnsignedShort();
    for (int i = 0; i < attributes; i++) {
      in.skipNBytes(2);
      in.skipNBytes(Integer.toUnsignedLong(in.readInt()));
    }
  }
}
