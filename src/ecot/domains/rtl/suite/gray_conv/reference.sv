module gray_conv (
    input  wire [7:0] bin_in,
    output wire [7:0] gray_out,
    input  wire [7:0] gray_in,
    output wire [7:0] bin_out
);
    assign gray_out = bin_in ^ {1'b0, bin_in[7:1]};

    // Each binary bit is the parity of the Gray bits at and above it.
    assign bin_out[7] = gray_in[7];
    assign bin_out[6] = ^gray_in[7:6];
    assign bin_out[5] = ^gray_in[7:5];
    assign bin_out[4] = ^gray_in[7:4];
    assign bin_out[3] = ^gray_in[7:3];
    assign bin_out[2] = ^gray_in[7:2];
    assign bin_out[1] = ^gray_in[7:1];
    assign bin_out[0] = ^gray_in[7:0];
endmodule
