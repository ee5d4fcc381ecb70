module popcount16 (
    input  wire [15:0] din,
    output wire [4:0]  count
);
    // Adder tree: pairs, then nibbles, then bytes, then the word.
    wire [1:0] p0 = din[0] + din[1],   p1 = din[2] + din[3];
    wire [1:0] p2 = din[4] + din[5],   p3 = din[6] + din[7];
    wire [1:0] p4 = din[8] + din[9],   p5 = din[10] + din[11];
    wire [1:0] p6 = din[12] + din[13], p7 = din[14] + din[15];
    wire [2:0] n0 = p0 + p1, n1 = p2 + p3, n2 = p4 + p5, n3 = p6 + p7;
    wire [3:0] h0 = n0 + n1, h1 = n2 + n3;

    assign count = h0 + h1;
endmodule
