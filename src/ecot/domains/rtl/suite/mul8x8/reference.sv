module mul8x8 (
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    input  wire        is_signed,
    output wire [15:0] p
);
    // Extend both operands to 16 bits (sign or zero) and keep the low half of the product.
    wire [15:0] ax = {{8{is_signed & a[7]}}, a};
    wire [15:0] bx = {{8{is_signed & b[7]}}, b};
    wire [31:0] full = ax * bx;

    assign p = full[15:0];
endmodule
