module mac8 (
    input  wire        clk,
    input  wire        rst,
    input  wire        clr,
    input  wire        en,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg  [23:0] acc
);
    wire signed [15:0] product = $signed(a) * $signed(b);
    wire        [23:0] addend  = {{8{product[15]}}, product};

    always @(posedge clk) begin
        if (rst || clr)
            acc <= 24'd0;
        else if (en)
            acc <= acc + addend;
    end
endmodule
