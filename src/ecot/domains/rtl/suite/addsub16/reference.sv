module addsub16 (
    input  wire [15:0] a,
    input  wire [15:0] b,
    input  wire        sub,
    output wire [15:0] result,
    output wire        carry,
    output wire        overflow
);
    wire [15:0] b_eff = sub ? ~b : b;
    wire [16:0] total = {1'b0, a} + {1'b0, b_eff} + {16'b0, sub};

    assign result   = total[15:0];
    assign carry    = total[16];
    assign overflow = (a[15] == b_eff[15]) && (result[15] != a[15]);
endmodule
