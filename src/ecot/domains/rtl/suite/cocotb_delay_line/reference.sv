module delay_line #(parameter WIDTH = 8, parameter DEPTH = 3) (
    input  wire             clk,
    input  wire [WIDTH-1:0] din,
    output wire [WIDTH-1:0] dout
);
    reg [WIDTH-1:0] stage [0:DEPTH-1];
    integer i;

    always @(posedge clk) begin
        stage[0] <= din;
        for (i = 1; i < DEPTH; i = i + 1)
            stage[i] <= stage[i-1];
    end

    assign dout = stage[DEPTH-1];
endmodule
